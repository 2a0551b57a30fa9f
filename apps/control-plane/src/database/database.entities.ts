/** Every entity of the control plane's schema; the migrations are generated from these. */
import { AclDocumentEntity } from '../acls/acl-document.entity';
import { AgentEntity } from '../agents/agent.entity';
import { AllocationCycleEntity } from '../allocation/allocation-cycle.entity';
import { AllocationShareEntity } from '../allocation/allocation-share.entity';
import { AuditEntryEntity } from '../audit/audit-entry.entity';
import { ApiTokenEntity } from '../auth/api-token.entity';
import { PrincipalEntity } from '../auth/principal.entity';
import { FrameworkEntity } from '../frameworks/framework.entity';
import { LeaderTermEntity } from '../leadership/leader-term.entity';
import { InverseOfferResponseEntity } from '../maintenance/inverse-offer-response.entity';
import { MaintenanceMachineEntity } from '../maintenance/maintenance-machine.entity';
import { MaintenanceWindowEntity } from '../maintenance/maintenance-window.entity';
import { OfferEntity, OutstandingOfferEntity } from '../offers/offer.entity';
import { ReservationEntity } from '../reservations/reservation.entity';
import { QuotaEntity } from '../roles/quota.entity';
import { RoleEntity } from '../roles/role.entity';
import { TaskStatusUpdateEntity } from '../tasks/task-status-update.entity';
import { TaskEntity } from '../tasks/task.entity';
import { WhitelistEntity } from '../whitelist/whitelist.entity';

export const ENTITIES = [
  AgentEntity,
  WhitelistEntity,
  RoleEntity,
  QuotaEntity,
  ReservationEntity,
  MaintenanceWindowEntity,
  MaintenanceMachineEntity,
  InverseOfferResponseEntity,
  FrameworkEntity,
  OfferEntity,
  OutstandingOfferEntity,
  TaskEntity,
  TaskStatusUpdateEntity,
  AllocationCycleEntity,
  AllocationShareEntity,
  AuditEntryEntity,
  PrincipalEntity,
  ApiTokenEntity,
  AclDocumentEntity,
  LeaderTermEntity,
];
