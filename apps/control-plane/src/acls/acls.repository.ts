import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AclDocumentEntity } from './acl-document.entity';

const CURRENT = 'current';

@Injectable()
export class AclsRepository {
  async get(tx: EntityManager): Promise<AclDocumentEntity | null> {
    return tx.findOne(AclDocumentEntity, { where: { id: CURRENT } });
  }

  async save(tx: EntityManager, document: Record<string, unknown>, updatedBy: string, now: Date): Promise<void> {
    await tx.save(tx.create(AclDocumentEntity, { id: CURRENT, document, updatedAt: now, updatedBy }));
  }
}
