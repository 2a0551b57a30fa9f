/**
 * What each principal may see of the /events stream: the master's frameworks by their user
 * (view_frameworks), roles (view_roles) and agents by their hostname (view_agents). ADMIN principals and principals whose view ACLs
 * allow everything see every event.
 */
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { PrincipalKind } from '../auth/principal.entity';
import { type EventView, OperatorStream } from '../realtime/operator-stream';
import { ClusterState } from './cluster-state';

@Injectable()
export class EventViews implements OnModuleInit {
  constructor(
    private readonly stream: OperatorStream,
    private readonly state: ClusterState,
    private readonly acls: AclsService,
  ) {}

  onModuleInit(): void {
    this.stream.setView((actor) => this.viewOf(actor));
  }

  viewOf(actor: Actor): EventView | null {
    if (actor.kind === null || actor.kind === PrincipalKind.ADMIN) return null;
    const unlimited = (action: 'view_frameworks' | 'view_roles' | 'view_agents') => {
      const scope = this.acls.scope(actor, action);
      return 'except' in scope && !scope.except.length;
    };
    if (unlimited('view_frameworks') && unlimited('view_roles') && unlimited('view_agents')) return null;
    return {
      framework: (id) => this.acls.allows(actor, 'view_frameworks', this.state.frameworks.get(id)?.user ?? ''),
      role: (role) => this.acls.allows(actor, 'view_roles', role),
      agent: (id, hostname) => {
        const host = hostname ?? this.state.agents.get(id)?.hostname;
        return host !== undefined && this.acls.allows(actor, 'view_agents', host);
      },
    };
  }
}
