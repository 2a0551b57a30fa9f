/**
 * Starting an executor's process through the containerizer: its image first when it names one
 * (a kill meanwhile ends it before it starts; its URIs are fetched meanwhile), then its user,
 * container, fetched URIs and command; it must subscribe within the registration timeout.
 */
import { isTerminalTaskState } from '@arbiter/contracts';
import { processStartTicks } from '../containerizer/launcher';
import type { OsUser } from '../containerizer/users';
import { FETCH_FAILED, fetchInto } from '../fetcher/fetcher';
import { executorLimits, type ExecutorRun, launchSpecOf } from './executor-run';
import type { Executors } from './executors';
import { linkTaskVolumes } from './group-volumes';
import { LaunchFailure } from './task';

/** Starts a new executor's process (its image's container first, when it names one). */
export function startExecutor(ex: Executors, run: ExecutorRun): void {
  if (run.spec.container?.image || ex.containerizer.hooks.starts) {
    // Its URIs are fetched while its image is provisioned (they need its sandbox and user, not its image), as a task's.
    const user = run.spec.uris?.length ? ex.containerizer.sandboxFor(run.container, run.frameworkId, run.spec.user) : undefined;
    if (user) fetchUris(ex, run, user);
    void provisionThenStart(ex, run);
  } else tryStart(ex, run);
}

/**
 * Its URIs into its sandbox, fetched once (while its image is provisioned, or before it starts):
 * a failure ends it and its tasks at once (an image it was given goes unused); its end aborts the fetch.
 */
function fetchUris(ex: Executors, run: ExecutorRun, user: OsUser): NonNullable<ExecutorRun['fetch']> {
  if (run.fetch) return run.fetch;
  const abort = new AbortController();
  const result = fetchInto(ex.fetcher, run.spec.uris ?? [], run.container.sandbox, user, abort.signal);
  void result.then((fetched) => {
    if ('failure' in fetched && run.state === 'REGISTERING' && !ex.closed)
      attempt(ex, run, () => {
        throw new LaunchFailure(FETCH_FAILED, fetched.failure);
      });
  });
  return (run.fetch = { result, abort });
}

/** The modules' start hooks, then its image (see TaskRunner); a kill meanwhile ends it before it starts. */
async function provisionThenStart(ex: Executors, run: ExecutorRun): Promise<void> {
  try {
    if (run.spec.type === 'DEFAULT' && run.spec.container?.image) throw new Error('the default executor does not run in an image');
    await ex.containerizer.hooks.executorStart(run.container, run.frameworkId, run.spec);
    await ex.containerizer.provision(run.container, run.spec.container);
  } catch (e) {
    run.ending = {
      state: 'FAILED',
      reason: 'REASON_CONTAINER_LAUNCH_FAILED',
      message: `could not launch the executor: ${(e as Error).message}`,
    };
    ex.terminated(run, null, null);
    return;
  }
  if (run.state === 'TERMINATED' || ex.closed) ex.containerizer.ended(run.container);
  else tryStart(ex, run);
}

function tryStart(ex: Executors, run: ExecutorRun): void {
  attempt(ex, run, () => start(ex, run));
}

/** Whatever a launch step throws ends the executor (and its tasks) FAILED. */
function attempt(ex: Executors, run: ExecutorRun, step: () => void): void {
  try {
    step();
  } catch (e) {
    const failed = e instanceof LaunchFailure ? e : new LaunchFailure('REASON_CONTAINER_LAUNCH_FAILED', (e as Error).message);
    run.ending = { state: 'FAILED', reason: failed.reason, message: `could not launch the executor: ${failed.message}` };
    ex.terminated(run, null, null);
  }
}

function start(ex: Executors, run: ExecutorRun): void {
  const found = ex.containerizer.userOf(run.frameworkId, run.spec.user);
  if ('problem' in found) throw new LaunchFailure(found.reason, found.problem);
  const { user } = found;
  [run.user, run.uid, run.gid] = [user.name, user.uid, user.gid];
  run.container.limits = executorLimits(run, ex.containerizer.pidsLimit, isTerminalTaskState);
  ex.containerizer.prepare(run.container, user, { container: run.spec.container, resources: run.spec.resources });
  const refused = linkTaskVolumes(ex.containerizer, run, [...run.tasks.values()]);
  if (refused) throw new LaunchFailure('REASON_CONTAINER_LAUNCH_FAILED', refused);
  ex.tryCheckpoint(run, true);
  // Its URIs first (Mesos's fetcher runs before the executor); a failure ends it and its tasks.
  if (!run.spec.uris?.length) {
    spawn(ex, run, user);
    return;
  }
  void fetchUris(ex, run, user).result.then((fetched) => {
    // A failed fetch has ended it; or it was killed meanwhile.
    if ('failure' in fetched || run.state !== 'REGISTERING' || ex.closed) return;
    attempt(ex, run, () => spawn(ex, run, user));
  });
}

function spawn(ex: Executors, run: ExecutorRun, user: OsUser): void {
  const spec = { ...launchSpecOf(run, ex.protocol.environment(run)), container: run.spec.container };
  const launched = ex.containerizer.launch(run.container, user, run.frameworkId, spec);
  const child = launched.child;
  run.child = child;
  if (launched.isolationError)
    run.ending = {
      state: 'FAILED',
      reason: 'REASON_CONTAINER_LAUNCH_FAILED',
      message: `could not isolate the executor: ${launched.isolationError.message}`,
    };
  child.once('error', (e) => {
    run.ending ??= { state: 'FAILED', reason: 'REASON_CONTAINER_LAUNCH_FAILED', message: `could not start the executor: ${e.message}` };
    ex.terminated(run, null, null);
  });
  child.once('spawn', () => {
    if (ex.closed) return;
    run.container.pid = child.pid;
    run.startTicks = child.pid ? processStartTicks(child.pid) : undefined;
    ex.tryCheckpoint(run);
  });
  child.once('exit', (code, signal) => ex.terminated(run, code, signal));
  const ms = ex.options.registrationTimeoutMs ?? 60_000;
  ex.awaitSubscription(run, ms, 'REASON_EXECUTOR_REGISTRATION_TIMEOUT', 'did not subscribe within');
}
