/**
 * A module that does nothing at every agent hook point (executor-start, container-start,
 * executor-removed): `arbiter bench e2e --agent-modules examples/modules/noop/agent.json` and
 * `arbiter agent --modules examples/modules/noop/agent.json` measure what calling hooks costs.
 */
import { defineModule, MODULE_API_VERSION } from '@arbiter/modules';

export default defineModule({
  name: 'noop-agent',
  apiVersion: MODULE_API_VERSION,
  points: ['agent:executor-start', 'agent:container-start', 'agent:executor-removed'],
  create: () => ({ executorStart: () => undefined, containerStart: () => undefined, executorRemoved: () => undefined }),
});
