/**
 * The worker thread of what-if: runs libs/allocator's `whatIf` (pure, no I/O) on the snapshot
 * and change it is sent and posts the result back, so that a large simulation never holds the
 * leader's event loop (what-if.workers.ts starts it).
 */
import { parentPort } from 'node:worker_threads';
import { type AllocatorSnapshot, AllocatorError, whatIf, WhatIfError } from '@arbiter/allocator';
import type { WhatIfChange } from '@arbiter/contracts';

export interface SimulationJob {
  snapshot: AllocatorSnapshot;
  change: WhatIfChange;
  cycles: number;
}

export type SimulationOutcome =
  | { ok: true; result: ReturnType<typeof whatIf> }
  /** `invalid`: the change does not apply to this cluster (a 400); otherwise the worker failed. */
  | { ok: false; invalid: boolean; message: string };

export function simulate(job: SimulationJob): SimulationOutcome {
  try {
    return { ok: true, result: whatIf(job.snapshot, job.change, job.cycles) };
  } catch (err) {
    const invalid = err instanceof WhatIfError || err instanceof AllocatorError;
    return { ok: false, invalid, message: err instanceof Error ? err.message : String(err) };
  }
}

const port = parentPort;
port?.on('message', (job: SimulationJob) => port.postMessage(simulate(job)));
