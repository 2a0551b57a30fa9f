/**
 * What-if on the live cluster: a snapshot of the leader's allocator, the next cycles run without
 * and with a change (libs/allocator's whatIf), nothing changed in the cluster.
 */
import { AllocatorError, parseResourcesInput, snapshotToScenario, whatIf, WhatIfError } from '@arbiter/allocator';
import { WhatIfChange } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { CLOCK, type Clock } from '../kernel/clock';
import { AllocationSnapshot } from '../allocation/allocation-snapshot';
import type { WhatIfRequestDto, WhatIfResultDto } from './what-if.dto';

/**
 * The change with every agent's resources as entries: like the rest of the API, what-if takes
 * them as Mesos text ("cpus:8;mem:16384"), a shorthand object or entries. Text that does not
 * parse is left for the schema to name.
 */
function withResourceEntries(change: Record<string, unknown>): Record<string, unknown> {
  const { addAgents } = change;
  if (!Array.isArray(addAgents)) return change;
  return {
    ...change,
    addAgents: addAgents.map((a: unknown) => {
      if (typeof a !== 'object' || a === null || !('resources' in a) || Array.isArray(a.resources)) return a;
      try {
        return { ...a, resources: parseResourcesInput(a.resources).toJSON() };
      } catch {
        return a;
      }
    }),
  };
}

const DEFAULT_CYCLES = 3;

@Injectable()
export class WhatIfService {
  constructor(
    private readonly snapshots: AllocationSnapshot,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async run(req: WhatIfRequestDto): Promise<WhatIfResultDto> {
    const parsed = WhatIfChange.safeParse(withResourceEntries(req.change));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: ['change', ...i.path].join('.'), message: i.message }));
      throw new ArbiterException(
        CommonErrorCode.VALIDATION_FAILED,
        `invalid change: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
        { issues },
      );
    }
    const cycles = req.cycles ?? DEFAULT_CYCLES;
    // Taken in the serial order: never a cycle paused between slices, nor a half-applied change.
    const { allocator: snapshot, frameworks } = await this.snapshots.read();
    let result: ReturnType<typeof whatIf>;
    try {
      result = whatIf(snapshot, parsed.data, cycles);
    } catch (err) {
      if (err instanceof WhatIfError || err instanceof AllocatorError)
        throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid change: ${err.message}`);
      throw err;
    }
    const agents: Record<string, string> = {};
    for (const a of snapshot.agents) agents[a.id] = a.hostname;
    for (const c of parsed.data.addAgents ?? [])
      for (let n = 1; n <= (c.count ?? 1); n++) {
        const hostname = (c.count ?? 1) > 1 ? `${c.hostname}-${n}` : c.hostname;
        agents[`what-if:${hostname}`] = hostname;
      }
    for (const f of parsed.data.addFrameworks ?? []) frameworks[f.id] ??= f.id;
    const at = this.clock.date();
    return {
      cycles,
      at: at.toISOString(),
      agents,
      frameworks,
      ...result,
      ...(req.scenario
        ? {
            scenario: snapshotToScenario(snapshot, {
              id: `cluster-${at.toISOString()}`,
              cycles,
              description: 'A snapshot of the live cluster',
            }),
          }
        : {}),
    };
  }
}
