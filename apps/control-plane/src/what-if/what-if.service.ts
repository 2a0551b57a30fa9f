/**
 * What-if on the live cluster: a snapshot of the leader's allocator, the next cycles run without
 * and with a change (libs/allocator's whatIf) in a worker thread (what-if.workers.ts), nothing
 * changed in the cluster. The change is bounded (WHAT_IF_LIMITS) and checked against the
 * `simulate` ACL on the roles it names.
 */
import { parseResourcesInput, snapshotToScenario } from '@arbiter/allocator';
import { WHAT_IF_LIMITS, WhatIfChange, whatIfSize } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';
import { CLOCK, type Clock } from '../kernel/clock';
import { AllocationSnapshot } from '../allocation/allocation-snapshot';
import type { WhatIfRequestDto, WhatIfResultDto } from './what-if.dto';
import { WhatIfErrorCode } from './what-if.errors';
import { SimulationWorkers } from './what-if.workers';

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

/** The roles a change names (weights, quota, added frameworks); `*` for a change that names none. */
function rolesOf(change: WhatIfChange): string[] {
  const roles = new Set([
    ...Object.keys(change.weights ?? {}),
    ...Object.keys(change.quotas ?? {}),
    ...(change.addFrameworks ?? []).flatMap((f) => f.roles),
  ]);
  return roles.size ? [...roles] : ['*'];
}

/** The refusal of a change past WHAT_IF_LIMITS, or undefined. */
function tooLarge(change: WhatIfChange): ArbiterException | undefined {
  const size = whatIfSize(change);
  const over = (Object.keys(WHAT_IF_LIMITS) as Array<keyof typeof WHAT_IF_LIMITS>).filter((k) => size[k] > WHAT_IF_LIMITS[k]);
  if (!over.length) return undefined;
  return new ArbiterException(
    WhatIfErrorCode.SIMULATION_TOO_LARGE,
    `the change is larger than what-if runs: ${over.map((k) => `${k} ${size[k]} (at most ${WHAT_IF_LIMITS[k]})`).join(', ')}`,
    { size, limits: WHAT_IF_LIMITS },
  );
}

@Injectable()
export class WhatIfService {
  constructor(
    private readonly snapshots: AllocationSnapshot,
    private readonly workers: SimulationWorkers,
    private readonly acls: AclsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async run(req: WhatIfRequestDto, actor: Actor): Promise<WhatIfResultDto> {
    const parsed = WhatIfChange.safeParse(withResourceEntries(req.change));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: ['change', ...i.path].join('.'), message: i.message }));
      throw new ArbiterException(
        CommonErrorCode.VALIDATION_FAILED,
        `invalid change: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
        { issues },
      );
    }
    const large = tooLarge(parsed.data);
    if (large) throw large;
    await this.acls.authorize(actor, 'simulate', rolesOf(parsed.data), 'run a what-if simulation');
    const cycles = req.cycles ?? DEFAULT_CYCLES;
    const { outcome, context: taken } = await this.workers.run(async () => {
      // Taken in the serial order: never a cycle paused between slices, nor a half-applied change.
      const read = await this.snapshots.read();
      return { job: { snapshot: read.allocator, change: parsed.data, cycles }, context: read };
    });
    if (!outcome.ok) {
      if (outcome.invalid) throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid change: ${outcome.message}`);
      throw new Error(`what-if failed: ${outcome.message}`);
    }
    const { result } = outcome;
    const { allocator: snapshot, frameworks } = taken;
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
