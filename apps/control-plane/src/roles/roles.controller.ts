import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { ApiErrors } from '../errors/errors.dto';
import { QuotaDto, RoleDto, UpdateQuotaDto, UpdateWeightsDto, WeightDto } from './roles.dto';
import { RolesErrorCode } from './roles.errors';
import { RolesService } from './roles.service';
import { Requires } from '../auth/permissions';
import { Coalesced } from '../app/coalesce';

@ApiTags('roles')
@ApiBearerAuth()
@Controller('api/v1')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get('roles')
  @Coalesced()
  @Requires('read', 'view_roles')
  @ApiOperation({ summary: 'Every known role with weight, quota, allocation, reservations and frameworks' })
  @ApiOkResponse({ type: [RoleDto] })
  @ApiErrors()
  list(@CurrentActor() actor: Actor): Promise<RoleDto[]> {
    return this.roles.roles(actor);
  }

  @Get('weights')
  @Requires('read', 'view_roles')
  @ApiOperation({ summary: 'Weights set explicitly (others weigh 1)' })
  @ApiOkResponse({ type: [WeightDto] })
  @ApiErrors()
  weights(@CurrentActor() actor: Actor): Promise<WeightDto[]> {
    return this.roles.weights(actor);
  }

  @Put('weights')
  @Requires('operate', 'update_weights')
  @ApiOperation({ summary: 'Update the weights of several roles at once (all or nothing)' })
  @ApiOkResponse({ type: [WeightDto] })
  @ApiErrors(RolesErrorCode.ROLE_REPEATED)
  updateWeights(@Body() body: UpdateWeightsDto, @CurrentActor() actor: Actor): Promise<WeightDto[]> {
    return this.roles.updateWeights(body.weights, actor);
  }

  @Get('quota')
  @Requires('read', 'view_roles')
  @ApiOperation({ summary: 'Quotas: guarantees and limits per top-level role' })
  @ApiOkResponse({ type: [QuotaDto] })
  @ApiErrors()
  quotas(@CurrentActor() actor: Actor): Promise<QuotaDto[]> {
    return this.roles.quotas(actor);
  }

  @Put('quota')
  @Requires('operate', 'update_quotas')
  @ApiOperation({ summary: 'Set the quota of several roles (all or nothing; guarantees within capacity unless force=true)' })
  @ApiOkResponse({ type: [QuotaDto] })
  @ApiErrors(
    RolesErrorCode.ROLE_REPEATED,
    RolesErrorCode.QUOTA_GUARANTEE_EXCEEDS_LIMIT,
    RolesErrorCode.QUOTA_HIERARCHY_VIOLATION,
    RolesErrorCode.QUOTA_EXCEEDS_CAPACITY,
  )
  updateQuotas(@Body() body: UpdateQuotaDto, @CurrentActor() actor: Actor): Promise<QuotaDto[]> {
    return this.roles.updateQuotas(body.quotas, body.force ?? false, actor);
  }

  @Delete('quota/:role')
  @Requires('operate', 'update_quotas')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove a role's quota" })
  @ApiErrors(RolesErrorCode.QUOTA_NOT_FOUND)
  removeQuota(@Param('role') role: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.roles.removeQuota(role, actor);
  }
}
