/** The operator audit log: recorded by every changing service, read through GET /api/v1/audit. */
import { Global, Module } from '@nestjs/common';
import { AccessLog } from './access-log';
import { RefusalLog } from '../auth/refusal-log';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { OwnsEntities } from '../database/database.entities';
import { AuditEntryEntity } from './audit-entry.entity';

@Global()
@OwnsEntities(AuditEntryEntity)
@Module({
  controllers: [AuditController],
  // The guard (auth/) records refused calls through RefusalLog: the access log is it.
  providers: [AuditRepository, AuditService, AccessLog, { provide: RefusalLog, useExisting: AccessLog }],
  exports: [AuditService, AccessLog, RefusalLog],
})
export class AuditModule {}
