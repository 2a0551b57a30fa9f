/** Every query of operation statuses. */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { OperationStatusEntity } from './operation-status.entity';

@Injectable()
export class OperationStatusesRepository {
  async insert(tx: EntityManager, rows: OperationStatusEntity[]): Promise<void> {
    if (rows.length) await tx.insert(OperationStatusEntity, rows);
  }

  /** A framework's kept statuses (of the ids given, or all), oldest first. */
  ofFramework(tx: EntityManager, frameworkId: string, operationIds?: string[]): Promise<OperationStatusEntity[]> {
    return tx.find(OperationStatusEntity, {
      where: { frameworkId, ...(operationIds ? { operationId: In(operationIds) } : {}) },
      order: { at: 'ASC', operationId: 'ASC' },
    });
  }

  /** Removes the status acknowledged: resolves with whether there was one. */
  async acknowledge(tx: EntityManager, frameworkId: string, operationId: string, uuid: string): Promise<boolean> {
    const result = await tx.delete(OperationStatusEntity, { frameworkId, operationId, uuid });
    return (result.affected ?? 0) > 0;
  }

  async forgetFramework(tx: EntityManager, frameworkId: string): Promise<void> {
    await tx.delete(OperationStatusEntity, { frameworkId });
  }
}
