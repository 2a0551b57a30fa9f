/** Every query of the whitelist (one row, id 1; no row means no whitelist). */
import { Injectable } from '@nestjs/common';
import { type EntityManager, Not } from 'typeorm';
import { AgentEntity, AgentStatus } from '../agents/agent.entity';
import { WhitelistEntity } from './whitelist.entity';

@Injectable()
export class WhitelistRepository {
  /** The whitelisted hostnames, or null for none set; `lock` holds the row for the transaction. */
  async hostnames(tx: EntityManager, options: { lock?: boolean } = {}): Promise<string[] | null> {
    const row = await tx.findOne(WhitelistEntity, {
      where: { id: 1 },
      ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    return row?.hostnames ?? null;
  }

  async save(tx: EntityManager, hostnames: string[] | null, at: Date): Promise<void> {
    await tx.save(WhitelistEntity, { id: 1, hostnames, updatedAt: at });
  }

  /** Hostnames of the agents that still count (not GONE). */
  async presentHostnames(tx: EntityManager): Promise<string[]> {
    return (await tx.find(AgentEntity, { where: { status: Not(AgentStatus.GONE) }, select: { hostname: true } })).map((a) => a.hostname);
  }
}
