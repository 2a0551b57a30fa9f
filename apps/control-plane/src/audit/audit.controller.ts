import { Controller, Get, Inject, Query } from '@nestjs/common';
import { VIEW_SCOPES, type ViewScopes } from '../common/view-scopes';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { AuditPageDto, AuditQueryDto, toAuditEntryDto } from './audit.dto';
import { AuditService } from './audit.service';
import { Requires } from '../auth/permissions';
import { type Actor, CurrentActor } from '../auth/auth.actor';

@ApiTags('audit')
@ApiBearerAuth()
@Controller('api/v1/audit')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    // The ACLs record their changes through AuditService, so they come in here, by their token.
    @Inject(VIEW_SCOPES) private readonly views: ViewScopes,
  ) {}

  @Get()
  @Requires('read', 'view_audit')
  @ApiOperation({
    summary: 'Operator audit log, newest first (the entries of the principals view_audit allows, of the roles view_roles allows)',
  })
  @ApiOkResponse({ type: AuditPageDto })
  @ApiErrors()
  async list(@Query() q: AuditQueryDto, @CurrentActor() actor: Actor): Promise<AuditPageDto> {
    const page = await this.audit.list(
      {
        actor: q.actor,
        action: q.action,
        targetType: q.targetType,
        targetId: q.targetId,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
        // The entries the view_audit ACL lets the caller see (by who made them), and of the
        // changes to roles those view_roles lets it see.
        actors: this.views.scope(actor, 'view_audit'),
        roles: this.views.scope(actor, 'view_roles'),
      },
      q.limit,
      q.offset,
    );
    return { ...page, items: page.items.map(toAuditEntryDto) };
  }
}
