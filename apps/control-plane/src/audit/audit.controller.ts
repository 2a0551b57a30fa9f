import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { AuditPageDto, AuditQueryDto, toAuditEntryDto } from './audit.dto';
import { AuditService } from './audit.service';
import { Requires } from '../auth/permissions';

@ApiTags('audit')
@ApiBearerAuth()
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Requires('read')
  @ApiOperation({ summary: 'Operator audit log, newest first' })
  @ApiOkResponse({ type: AuditPageDto })
  @ApiErrors()
  async list(@Query() q: AuditQueryDto): Promise<AuditPageDto> {
    const page = await this.audit.list(
      {
        actor: q.actor,
        action: q.action,
        targetType: q.targetType,
        targetId: q.targetId,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
      },
      q.limit,
      q.offset,
    );
    return { ...page, items: page.items.map(toAuditEntryDto) };
  }
}
