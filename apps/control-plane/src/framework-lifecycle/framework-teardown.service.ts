/** The operator's framework teardown: tasks killed, offers rescinded; recorded in the audit log. */
import { Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { FrameworkState } from '../frameworks/framework.entity';
import type { FrameworkDto } from '../frameworks/frameworks.dto';
import { FrameworksService } from '../frameworks/frameworks.service';
import { FrameworkRemoval } from './framework-removal.handler';

@Injectable()
export class FrameworkTeardown {
  constructor(
    private readonly frameworks: FrameworksService,
    private readonly removal: FrameworkRemoval,
    private readonly acls: AclsService,
  ) {}

  async teardown(id: string, actor: Actor): Promise<FrameworkDto> {
    const before = await this.frameworks.get(id);
    await this.acls.authorize(actor, 'teardown_frameworks', before.principal ?? '', `tear down framework ${id}`);
    if (before.state === FrameworkState.COMPLETED) return before;
    // The teardown's audit entry commits with the framework's completion.
    await this.removal.teardownById(id, actor);
    return this.frameworks.get(id);
  }
}
