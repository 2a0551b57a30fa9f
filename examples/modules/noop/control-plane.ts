/**
 * A module that does nothing at the control plane's hook point (control-plane:task-launch):
 * `arbiter bench e2e --modules examples/modules/noop/control-plane.json` measures what calling
 * hooks costs (docs/benchmarks.md).
 */
import { defineModule, MODULE_API_VERSION } from '@arbiter/modules';

export default defineModule({
  name: 'noop-control-plane',
  apiVersion: MODULE_API_VERSION,
  points: ['control-plane:task-launch'],
  create: () => ({ taskLaunch: () => undefined }),
});
