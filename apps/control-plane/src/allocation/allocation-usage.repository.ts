/**
 * What is in use: resources of live tasks (not in a terminal state) and of outstanding offers.
 * Reservations, roles and agents read usage through here; the allocation loop will write it.
 */
import { Injectable } from '@nestjs/common';
import { type EntityManager, In, Not } from 'typeorm';
import type { ResourceEntry } from '@arbiter/allocator';
import { OfferEntity, OfferState } from '../offers/offer.entity';
import { TaskEntity, TERMINAL_TASK_STATES } from '../tasks/task.entity';

export interface Usage {
  agentId: string;
  role: string;
  frameworkId: string;
  resources: ResourceEntry[];
}

@Injectable()
export class AllocationUsageRepository {
  async list(tx: EntityManager, where: { agentId?: string } = {}): Promise<Usage[]> {
    const select = { agentId: true, role: true, frameworkId: true, resources: true } as const;
    const [tasks, offers] = await Promise.all([
      tx.find(TaskEntity, { select, where: { ...where, state: Not(In([...TERMINAL_TASK_STATES])) } }),
      tx.find(OfferEntity, { select, where: { ...where, state: OfferState.OUTSTANDING } }),
    ]);
    return [...tasks, ...offers];
  }

  /** Resources of live tasks only (outstanding offers can be rescinded, tasks cannot). */
  async liveTasks(tx: EntityManager, where: { agentId?: string } = {}): Promise<Usage[]> {
    return tx.find(TaskEntity, { select: { agentId: true, role: true, frameworkId: true, resources: true }, where: { ...where, state: Not(In([...TERMINAL_TASK_STATES])) } });
  }

  async countLiveTasks(tx: EntityManager, agentId: string): Promise<number> {
    return tx.count(TaskEntity, { where: { agentId, state: Not(In([...TERMINAL_TASK_STATES])) } });
  }
}
