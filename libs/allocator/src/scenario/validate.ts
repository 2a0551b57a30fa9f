/**
 * Validation of scenario documents (scenario-format.md, v1). Unknown fields and `comment`s are
 * ignored; an unknown op or a missing or ill-typed field is a ScenarioValidationError naming the
 * step index and the field.
 */
import { ResourceParseError, resourcesFromJSON } from '../resources';

export class ScenarioValidationError extends Error {
  constructor(
    message: string,
    /** Index into `steps`, or undefined for top-level fields. */
    readonly stepIndex: number | undefined,
    readonly field: string,
  ) {
    super(stepIndex === undefined ? `${field}: ${message}` : `step ${stepIndex}: ${field}: ${message}`);
    this.name = 'ScenarioValidationError';
  }
}

type FieldType = 'string' | 'number' | 'boolean' | 'resources' | 'strings' | 'quantities' | 'stringsOrNull' | 'array' | 'object';
type Spec = Record<string, FieldType | `${FieldType}?`>;

export const SORTER_OPS: Record<string, Spec> = {
  addAgent: { id: 'string', resources: 'resources' },
  removeAgent: { id: 'string' },
  addClient: { client: 'string' },
  activateClient: { client: 'string' },
  deactivateClient: { client: 'string' },
  removeClient: { client: 'string' },
  setWeight: { role: 'string', weight: 'number' },
  allocated: { client: 'string', agent: 'string', resources: 'resources' },
  unallocated: { client: 'string', agent: 'string', resources: 'resources' },
  updateAllocation: { client: 'string', agent: 'string', old: 'resources', new: 'resources' },
  expectSort: { order: 'strings' },
  expectContains: { client: 'string', contains: 'boolean' },
  expectCount: { count: 'number' },
  expectShare: { client: 'string', share: 'number' },
  expectAllocation: { client: 'string', agent: 'string', resources: 'resources' },
  expectAllocationQuantities: { client: 'string?', quantities: 'quantities' },
};

export const ALLOCATOR_OPS: Record<string, Spec> = {
  addAgent: { id: 'string', resources: 'resources', used: 'array?', refinedReservations: 'strings?' },
  removeAgent: { id: 'string' },
  updateAgent: { id: 'string', resources: 'resources', refinedReservations: 'strings?' },
  addFramework: { id: 'string', roles: 'strings', capabilities: 'strings?' },
  deactivateFramework: { id: 'string' },
  activateFramework: { id: 'string' },
  suppressOffers: { framework: 'string', roles: 'strings?' },
  reviveOffers: { framework: 'string', roles: 'strings?' },
  setQuota: { role: 'string', guarantees: 'quantities', limits: 'quantities' },
  removeQuota: { role: 'string' },
  setWeight: { role: 'string', weight: 'number' },
  updateWhitelist: { hostnames: 'stringsOrNull' },
  updateUnavailability: { agent: 'string', start: 'number' },
  reserve: { agent: 'string', role: 'string', resources: 'resources' },
  recoverResources: { framework: 'string', agent: 'string', role: 'string', resources: 'resources', refuseSeconds: 'number?' },
  declineOffers: { framework: 'string?', refuseSeconds: 'number?' },
  advanceClock: { seconds: 'number' },
  allocate: { agents: 'strings?', trigger: 'string?' },
  expectOffers: { offers: 'array?', oneOf: 'array?' },
  expectOfferTotals: { totals: 'array' },
  expectOfferTally: { tally: 'object' },
  expectInverseOffers: { inverseOffers: 'array' },
};

function checkField(value: unknown, type: FieldType, stepIndex: number | undefined, field: string): void {
  const fail = (what: string) => {
    throw new ScenarioValidationError(what, stepIndex, field);
  };
  switch (type) {
    case 'string':
      if (typeof value !== 'string' || value === '') fail('expected a non-empty string');
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) fail('expected a number');
      break;
    case 'boolean':
      if (typeof value !== 'boolean') fail('expected true or false');
      break;
    case 'strings':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) fail('expected a list of strings');
      break;
    case 'stringsOrNull':
      if (value !== null && (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))) fail('expected a list of strings or null');
      break;
    case 'array':
      if (!Array.isArray(value)) fail('expected a list');
      break;
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('expected an object');
      break;
    case 'quantities':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('expected quantities such as {"cpus": 2}');
      for (const [k, v] of Object.entries(value as object)) {
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
          throw new ScenarioValidationError(`'${k}' must be a non-negative number`, stepIndex, field);
      }
      break;
    case 'resources':
      try {
        resourcesFromJSON(value);
      } catch (err) {
        if (err instanceof ResourceParseError) fail(err.message);
        throw err;
      }
      break;
  }
}

export interface ScenarioStep {
  op: string;
  [field: string]: unknown;
}

export interface ScenarioDocument {
  id: string;
  kind: 'sorter' | 'allocator';
  randomizedAgentOrder?: boolean;
  config?: Record<string, unknown>;
  steps: ScenarioStep[];
}

/** Checks a parsed scenario document; throws ScenarioValidationError on the first problem. */
export function validateScenario(doc: unknown): ScenarioDocument {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new ScenarioValidationError('a scenario must be a JSON object', undefined, 'document');
  const d = doc as Record<string, unknown>;
  checkField(d.id, 'string', undefined, 'id');
  if (d.kind !== 'sorter' && d.kind !== 'allocator')
    throw new ScenarioValidationError(`expected "sorter" or "allocator", got ${JSON.stringify(d.kind)}`, undefined, 'kind');
  if (!Array.isArray(d.steps)) throw new ScenarioValidationError('expected a list of steps', undefined, 'steps');
  if (d.config !== undefined) checkField(d.config, 'object', undefined, 'config');
  const ops = d.kind === 'sorter' ? SORTER_OPS : ALLOCATOR_OPS;
  d.steps.forEach((step: unknown, i: number) => {
    if (step === null || typeof step !== 'object' || Array.isArray(step))
      throw new ScenarioValidationError('a step must be an object', i, 'op');
    const s = step as Record<string, unknown>;
    const spec = typeof s.op === 'string' ? ops[s.op] : undefined;
    if (!spec) throw new ScenarioValidationError(`unknown op ${JSON.stringify(s.op)} for a ${String(d.kind)} scenario`, i, 'op');
    for (const [field, t] of Object.entries(spec)) {
      const optional = t.endsWith('?');
      const type = (optional ? t.slice(0, -1) : t) as FieldType;
      if (s[field] === undefined) {
        if (!optional) throw new ScenarioValidationError('missing', i, field);
        continue;
      }
      checkField(s[field], type, i, field);
    }
    if (s.op === 'expectOffers' && (s.offers === undefined) === (s.oneOf === undefined)) {
      throw new ScenarioValidationError('give exactly one of offers or oneOf', i, 'offers');
    }
  });
  return d as unknown as ScenarioDocument;
}
