/**
 * The worker thread of what-if: runs libs/allocator's `whatIf` (pure, no I/O) on the snapshot
 * and change it is sent and posts the result back, so that a large simulation never holds the
 * leader's event loop (what-if.workers.ts starts it).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type AllocatorPolicies, type AllocatorSnapshot, AllocatorError, whatIf, WhatIfError } from '@arbiter/allocator';
import type { WhatIfChange } from '@arbiter/contracts';
import { loadModules, type ModulesFile } from '@arbiter/modules';

export interface SimulationJob {
  snapshot: AllocatorSnapshot;
  change: WhatIfChange;
  cycles: number;
}

export type SimulationOutcome =
  | { ok: true; result: ReturnType<typeof whatIf> }
  /** `invalid`: the change does not apply to this cluster (a 400); otherwise the worker failed. */
  | { ok: false; invalid: boolean; message: string };

export function simulate(job: SimulationJob, policies: AllocatorPolicies = {}): SimulationOutcome {
  try {
    return { ok: true, result: whatIf(job.snapshot, job.change, job.cycles, policies) };
  } catch (err) {
    const invalid = err instanceof WhatIfError || err instanceof AllocatorError;
    return { ok: false, invalid, message: err instanceof Error ? err.message : String(err) };
  }
}

/** The allocator policies of the control plane's modules file (its sorter, its placement), loaded once per worker. */
async function policiesOf(file: ModulesFile | undefined): Promise<AllocatorPolicies> {
  const loaded = await loadModules(file, { host: 'allocator', skipOtherHosts: true });
  return {
    ...(loaded.sorter ? { sorterFactory: loaded.sorter.factory } : {}),
    ...(loaded.placement ? { placementFactory: loaded.placement.factory } : {}),
  };
}

const port = parentPort;
if (port) {
  const policies = policiesOf((workerData as { modules?: ModulesFile } | null)?.modules);
  port.on('message', (job: SimulationJob) => {
    policies.then(
      (p) => port.postMessage(simulate(job, p)),
      (err: unknown) =>
        port.postMessage({
          ok: false,
          invalid: false,
          message: `the what-if worker could not load the modules: ${(err as Error).message}`,
        }),
    );
  });
}
