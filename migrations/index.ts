/**
 * The control plane's migrations, in the order they run. Generated from the entities by
 * `npx arbiter db generate <Name>` (which also adds them here) and never edited after they land.
 */
import type { MigrationInterface } from 'typeorm';
// migrations:imports
import { SharedVolumes1795789169017 } from './1795789169017-SharedVolumes';
import { OperationFeedbackAndRefinement1795784320547 } from './1795784320547-OperationFeedbackAndRefinement';
import { PersistentVolumes1795785708285 } from './1795785708285-PersistentVolumes';
import { FenceVolumes1795786000000 } from './1795786000000-FenceVolumes';
import { TaskHealth1795775097492 } from './1795775097492-TaskHealth';
import { ContainerTasksAgentCapabilities1795774378776 } from './1795774378776-ContainerTasksAgentCapabilities';
import { FrameworkCheckpoint1795774300001 } from './1795774300001-FrameworkCheckpoint';
import { ExecutorUpdateFields1795773049301 } from './1795773049301-ExecutorUpdateFields';
import { TaskFields1795761899869 } from './1795761899869-TaskFields';
import { Executors1795761915757 } from './1795761915757-Executors';
import { TaskUser1795748731534 } from './1795748731534-TaskUser';
import { FrameworkProtocol1795634849400 } from './1795634849400-FrameworkProtocol';
import { AgentHealth1795700000000 } from './1795700000000-AgentHealth';
import { MesosTaskStates1795552073198 } from './1795552073198-MesosTaskStates';
import { LeadershipTerms1795530680629 } from './1795530680629-LeadershipTerms';
import { PrincipalKindsAgentOwnersAcls1795492649436 } from './1795492649436-PrincipalKindsAgentOwnersAcls';
import { TaskCreatedIndex1795461984052 } from './1795461984052-TaskCreatedIndex';
import { EndedTaskIndex1795460887692 } from './1795460887692-EndedTaskIndex';
import { OfferAgentTimeIndex1795455846547 } from './1795455846547-OfferAgentTimeIndex';
import { OfferStorage1795453535871 } from './1795453535871-OfferStorage';
import { UnacknowledgedStatusUpdates1795431005691 } from './1795431005691-UnacknowledgedStatusUpdates';
import { TaskStatusUpdateUuidUnique1795414746788 } from './1795414746788-TaskStatusUpdateUuidUnique';
import { Initial1795414029889 } from './1795414029889-Initial';

export const MIGRATIONS: Array<new () => MigrationInterface> = [
  Initial1795414029889,
  TaskStatusUpdateUuidUnique1795414746788,
  UnacknowledgedStatusUpdates1795431005691,
  OfferStorage1795453535871,
  OfferAgentTimeIndex1795455846547,
  EndedTaskIndex1795460887692,
  TaskCreatedIndex1795461984052,
  PrincipalKindsAgentOwnersAcls1795492649436,
  LeadershipTerms1795530680629,
  MesosTaskStates1795552073198,
  FrameworkProtocol1795634849400,
  AgentHealth1795700000000,
  TaskUser1795748731534,
  TaskFields1795761899869,
  Executors1795761915757,
  ExecutorUpdateFields1795773049301,
  FrameworkCheckpoint1795774300001,
  ContainerTasksAgentCapabilities1795774378776,
  TaskHealth1795775097492,
  OperationFeedbackAndRefinement1795784320547,
  PersistentVolumes1795785708285,
  FenceVolumes1795786000000,
  SharedVolumes1795789169017,
  // migrations:list
];
