/** The rows tests seed (`@arbiter/control-plane/entities`): the entities and their enums, for mock factories. */
export { AgentEntity, AgentStatus, DrainState } from './agents/agent.entity';
export { FrameworkEntity, FrameworkState } from './frameworks/framework.entity';
export { OfferEntity, OfferState } from './offers/offer.entity';
export { TaskEntity, TaskState } from './tasks/task.entity';
