/** ACLs: what each principal may do to which roles, users, agents and machines (Mesos's format). */
import { Global, Module } from '@nestjs/common';
import { AclsController } from './acls.controller';
import { AclsRepository } from './acls.repository';
import { AclsService } from './acls.service';
import { OwnsEntities } from '../database/database.entities';
import { AclDocumentEntity } from './acl-document.entity';
import { VIEW_SCOPES } from '../common/view-scopes';

@Global()
@OwnsEntities(AclDocumentEntity)
@Module({
  controllers: [AclsController],
  providers: [AclsRepository, AclsService, { provide: VIEW_SCOPES, useExisting: AclsService }],
  exports: [AclsService, VIEW_SCOPES],
})
export class AclsModule {}
