/**
 * What the agent says at start of how it isolates tasks: its cgroups (or why none), its GPUs,
 * the ports isolator's mode, a missing private /tmp, whether container images can run.
 */
import type { AgentCapabilities } from '@arbiter/contracts';
import type { Logger } from 'pino';
import type { Containerizer } from './containerizer/containerizer';

export function logIsolation(log: Logger, containerizer: Containerizer, capabilities: AgentCapabilities): void {
  const isolator = containerizer.cgroups;
  if (isolator.mode === 'posix')
    log.warn(
      'no cgroups this agent may create: tasks are isolated by process groups and OS users only; memory is enforced by polling, CPU and pids are not limited',
    );
  else log.info({ isolation: isolator.mode, controllers: isolator.controllers, taskUser: containerizer.taskUser }, 'task isolation');
  const { gpus, ports } = containerizer;
  if (gpus) log.info({ gpus: gpus.reported }, 'GPUs handed out to tasks (gpu/nvidia)');
  if (gpus?.problem) log.warn(gpus.problem);
  if (ports && !ports.enforce)
    log.info('network/ports: tasks listening on ports they were not given are only reported (--no-enforce-container-ports)');
  const { privateTmpProblem } = containerizer;
  if (privateTmpProblem)
    log.warn(
      `tasks get no private /tmp and /dev/shm (${privateTmpProblem}): their TMPDIR is in their sandbox, but what they write to /tmp or /dev/shm is not counted against their disk`,
    );
  const { imagesProblem } = capabilities;
  if (imagesProblem) log.warn(`container images are off: ${imagesProblem}`);
  else log.info({ runtime: capabilities.runtime, isolators: capabilities.isolators }, 'container images on');
}
