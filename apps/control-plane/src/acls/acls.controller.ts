import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { Requires } from '../auth/permissions';
import { ApiErrors } from '../errors/errors.dto';
import { AclsDto } from './acls.dto';
import { ACL_ACTIONS } from '../config/acls.rules';
import { type AclsView, AclsService } from './acls.service';

const toDto = (v: AclsView): AclsDto => ({ document: v.document, updatedAt: v.updatedAt?.toISOString() ?? null, updatedBy: v.updatedBy });

@ApiTags('access')
@ApiBearerAuth()
@Controller('api/v1/acls')
export class AclsController {
  constructor(private readonly acls: AclsService) {}

  @Get()
  @Requires('admin')
  @ApiOperation({ summary: "The cluster's ACLs (Mesos's JSON format)" })
  @ApiOkResponse({ type: AclsDto })
  @ApiErrors()
  async get(): Promise<AclsDto> {
    return toDto(await this.acls.get());
  }

  @Put()
  @Requires('admin')
  @ApiOperation({ summary: `Replace the ACLs as a whole (validated; audited). Actions: ${ACL_ACTIONS.join(', ')}` })
  @ApiBody({
    schema: { type: 'object', additionalProperties: true },
    description:
      'ACLs in Mesos\'s JSON format, e.g. {"permissive": false, "update_quotas": [{"principals": {"values": ["ops"]}, "roles": {"type": "ANY"}}]}',
  })
  @ApiOkResponse({ type: AclsDto })
  @ApiErrors(AuthErrorCode.ACLS_INVALID)
  async replace(@Body() body: unknown, @CurrentActor() actor: Actor): Promise<AclsDto> {
    return toDto(await this.acls.replace(body, actor));
  }
}
