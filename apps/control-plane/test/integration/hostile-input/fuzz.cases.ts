/**
 * Bad input is a 4xx everywhere: property-based fuzzing (fast-check) of every REST operation of
 * the OpenAPI document the control plane serves and of every socket call of the contracts'
 * agent and framework protocols, with hostile values (NUL bytes, lone surrogates, nesting
 * 10,000 deep, huge and negative numbers, wrong types, long strings, role names such as `a:b`
 * or `..`) in paths, query strings and bodies. No answer may be a 5xx or INTERNAL_ERROR, every
 * refusal has the API's error shape, a refused request changes nothing in the database, and
 * nothing is logged as an error.
 *
 * The seed is fixed and printed; FUZZ_SEED=<n> FUZZ_RUNS=<n> replay or widen a run.
 */
import { Logger } from '@nestjs/common';
import fc from 'fast-check';
import { io, type Socket } from 'socket.io-client';
import { AGENTS_NAMESPACE, type AgentCalls, type FrameworkCalls, FRAMEWORKS_NAMESPACE, type Reply } from '@arbiter/contracts';
import { ADMIN_TOKEN, seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { errorBody } from '../../support/client';
import { until } from '../../support/until';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
/**
 * Time for one test, a guard against a hang: about 10 ms a request on a quiet 2-core runner, and
 * several times that while the rest of `npm test` shares its two cores.
 */
const TIME_LIMIT = 60_000 + RUNS * 6_000;
/** Socket calls cost a millisecond or two each: many more of them. */
const SOCKET_RUNS = RUNS * 8;

/** A well-formed id of nothing (fixed, so that a seed replays the same requests). */
const SOME_UUID = '0b6e3c1a-6a43-4c1e-9d7f-3f2a5d9e8c71';

/** Tables the control plane writes on its own (leadership, the allocation loop): not part of what a request may change. */
const BACKGROUND_TABLES = new Set(['leader_terms', 'allocation_cycles', 'allocation_shares', 'migrations', 'typeorm_metadata']);
/** Columns refreshed by time, not by requests. */
const BACKGROUND_COLUMNS = ['last_used_at', 'last_seen_at'];

let t: TestControlPlane;
let snapshotSql: string;
const loggedErrors: unknown[][] = [];

// ---------------------------------------------------------------------------------------------
// Hostile values

const ROLE_NAMES = ['a:b', '.', '..', '*', '', '-a', 'a//b', '/a', 'a/', 'a b', 'a/../b', 'eng', 'eng/ml', 'a@b', 'a+b'];
const TRICKY_TEXT = [
  '\u0000',
  'x\u0000y',
  '\ud800',
  'a\udc00b',
  '%00',
  '%ED%A0%80',
  '../../etc/passwd',
  "' OR 1=1 --",
  'cpus(a:b):1',
  'cpus:-1',
  'cpus:1e400',
  'ports:[10-1]',
  'null',
  '-1',
  'NaN',
  '1e400',
  '2026-13-45T99:99:99Z',
  'agent-1',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
];
/** Any UTF-16 code unit, lone surrogates and NUL included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** Hostile text; `longest` bounds the long ones (a URL longer than Node's 16 KiB header limit is refused before the API sees it). */
const hostileText = (longest: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...ROLE_NAMES, ...TRICKY_TEXT),
    fc.string({ unit: codeUnit, maxLength: 20 }),
    fc.integer({ min: 256, max: longest }).map((n) => 'x'.repeat(n)),
  );
const hostileString = hostileText(70_000);
/** For paths and query strings. */
const hostileUrlText = hostileText(1_000);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(-1, 0, 0.0001, 1e12 + 1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 53)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** A hostile value: a leaf, a small structure of them (keys hostile too), or nesting far past any limit. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileLeaf },
  { weight: 2, arbitrary: fc.array(hostileLeaf, { maxLength: 3 }) },
  { weight: 2, arbitrary: fc.dictionary(hostileString, hostileLeaf, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(300, 2_000).map((n) => nested(n)) },
);

/** A value nested `depth` levels deep (built without recursion). */
function nested(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

// ---------------------------------------------------------------------------------------------
// The OpenAPI document: values shaped like each schema, with hostile ones anywhere

interface SchemaObject {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  example?: unknown;
  properties?: Record<string, SchemaObject>;
  items?: SchemaObject;
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: SchemaObject;
}
interface OperationObject {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: SchemaObject }> };
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, SchemaObject> };
}

function shaped(doc: OpenApiDocument, schema: SchemaObject | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileValue;
  if (schema.$ref) return shaped(doc, doc.components.schemas[schema.$ref.split('/').pop() ?? ''], depth + 1);
  let typed: fc.Arbitrary<unknown>;
  if (schema.oneOf?.length) typed = fc.oneof(...schema.oneOf.map((s) => shaped(doc, s, depth + 1)));
  else if (schema.allOf?.length) typed = shaped(doc, schema.allOf[0], depth + 1);
  else if (schema.enum?.length) typed = fc.constantFrom(...schema.enum);
  else if (schema.type === 'object' && schema.properties) {
    const props = schema.properties;
    typed = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, shaped(doc, s, depth + 1)])), { requiredKeys: [] });
  } else if (schema.type === 'array') typed = fc.array(shaped(doc, schema.items, depth + 1), { maxLength: 3 });
  else if (schema.type === 'string') typed = fc.oneof(hostileString, fc.constant(schema.example ?? 'x'));
  else if (schema.type === 'number' || schema.type === 'integer') typed = hostileNumber;
  else if (schema.type === 'boolean') typed = fc.boolean();
  else typed = hostileValue;
  return fc.oneof({ weight: 4, arbitrary: typed }, { weight: 1, arbitrary: hostileValue });
}

/** A value the schema describes, from its examples (every property present): the base that mutations spoil. */
function plausible(doc: OpenApiDocument, schema: SchemaObject | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return 'x';
  if (schema.$ref) return plausible(doc, doc.components.schemas[schema.$ref.split('/').pop() ?? ''], depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.oneOf?.length) return plausible(doc, schema.oneOf[0], depth + 1);
  if (schema.allOf?.length) return plausible(doc, schema.allOf[0], depth + 1);
  if (schema.type === 'object')
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, plausible(doc, s, depth + 1)]));
  if (schema.type === 'array') return [plausible(doc, schema.items, depth + 1)];
  if (schema.type === 'number' || schema.type === 'integer') return 1;
  if (schema.type === 'boolean') return false;
  return 'x';
}

/** A request body as text: JSON of a shaped value or of a plausible one with a hostile part, or JSON no parser should take whole. */
function bodyText(doc: OpenApiDocument, schema: SchemaObject | undefined): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: shaped(doc, schema).map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: hostileMessage(plausible(doc, schema)).map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '['.repeat(10_000) + ']'.repeat(10_000),
        '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
        '{"weights":[{"role":"eng","weight":1}',
        '{"a":"\\ud800"}',
        '{"a\\u0000":1}',
        '',
      ),
    },
  );
}

interface RestOperation {
  method: string;
  path: string;
  request: fc.Arbitrary<{ url: string; body?: string; token: string | null }>;
}

function operations(doc: OpenApiDocument): RestOperation[] {
  const out: RestOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const queryParams = params.filter((p) => p.in === 'query');
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const request = fc.record({
        pathValues: fc.tuple(...pathParams.map(() => fc.oneof(hostileUrlText, fc.constantFrom('agent-1', SOME_UUID, 'eng')))),
        // A parameter given twice arrives as a list.
        query: fc.record(
          Object.fromEntries(
            queryParams.map((p) => [
              p.name,
              fc.oneof({ weight: 4, arbitrary: hostileUrlText.map((v) => [v]) }, fc.array(hostileUrlText, { minLength: 2, maxLength: 3 })),
            ]),
          ),
          { requiredKeys: [] },
        ),
        body: op.requestBody ? bodyText(doc, bodySchema).map((b) => b as string | undefined) : fc.constant(undefined),
        token: fc.constantFrom<string | null>(ADMIN_TOKEN, ADMIN_TOKEN, ADMIN_TOKEN, null),
      });
      out.push({
        method: method.toUpperCase(),
        path,
        request: request.map(({ pathValues, query, body, token }) => {
          let url = path;
          pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encode(pathValues[i]))));
          const qs = Object.entries(query)
            .flatMap(([k, values]) => (values ?? []).map((v) => `${encodeURIComponent(k)}=${encode(v)}`))
            .join('&');
          return { url: qs ? `${url}?${qs}` : url, body, token };
        }),
      });
    }
  }
  return out;
}

/** Percent-encodes text as UTF-8, lone surrogates as the bytes a careless client would send. */
function encode(text: string): string {
  return Array.from(text)
    .map((ch) => {
      const c = ch.charCodeAt(0);
      if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff)
        return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map(pct).join('');
      return encodeURIComponent(ch);
    })
    .join('');
}
const pct = (b: number) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`;

// ---------------------------------------------------------------------------------------------
// What must hold

/** A counterexample or error, cut to a readable length. */
function short(value: unknown): string {
  const text = value instanceof Error ? value.message : ((JSON.stringify(value) as string | undefined) ?? String(value));
  return text.replace(/(.)\1{39,}/gs, (m, c: string) => `${c}…(${m.length})`).slice(0, 1_500);
}

async function snapshot(): Promise<unknown> {
  return t.cp.dataSource.query(snapshotSql);
}

async function send(method: string, url: string, body: string | undefined, token: string | null) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(t.cp.url + url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, json: (res.headers.get('content-type') ?? '').includes('json') };
}

beforeAll(() => {
  const errorSpy = jest.spyOn(Logger.prototype, 'error');
  errorSpy.mockImplementation((...args: unknown[]) => void loggedErrors.push(args));
  console.log(`fuzz: seed ${SEED}, ${RUNS} runs per REST operation, ${SOCKET_RUNS} per socket call (FUZZ_SEED, FUZZ_RUNS)`);
});
// Each test answers for what was logged while it ran.
beforeEach(() => {
  loggedErrors.length = 0;
});
afterAll(() => {
  jest.restoreAllMocks();
});

/** A control plane on a fresh database for each protocol's fuzzing (what one leaves behind cannot starve the other). */
function startTarget(): Promise<TestControlPlane> {
  // The fuzzing agent heartbeats only when a fuzzed call is one: it must not time out meanwhile.
  // Its sockets' pings neither: client and server share this process's event loop, which a call
  // of 100,000 task ids holds for seconds on a busy machine (past the 5 + 5 s of the default).
  return startTestControlPlane({ config: { agentTimeout: 3_600, pingInterval: 60, pingTimeout: 60 } });
}

describe('REST: every operation of the OpenAPI document', () => {
  beforeAll(async () => {
    t = await startTarget();
    await seedAgent(t.cp, { id: 'agent-1' });
    await t.request('PUT', '/api/v1/weights', { weights: [{ role: 'eng', weight: 2 }] });
    const tables: Array<{ table_name: string }> = await t.cp.dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    const strip = BACKGROUND_COLUMNS.map((c) => ` - '${c}'`).join('');
    snapshotSql = `SELECT ${tables
      .map((r) => r.table_name)
      .filter((name) => !BACKGROUND_TABLES.has(name))
      .map(
        (name) =>
          `(SELECT md5(coalesce(string_agg((to_jsonb(x)${strip})::text, ',' ORDER BY (to_jsonb(x)${strip})::text), '')) FROM "${name}" x) AS "${name}"`,
      )
      .join(', ')}`;
  });
  afterAll(() => t.close());

  it(
    'answers hostile requests with a 4xx error body (never a 5xx), and a refused request changes nothing',
    async () => {
      const doc = JSON.parse((await send('GET', '/api/docs-json', undefined, null)).text) as OpenApiDocument;
      const ops = operations(doc);
      expect(ops.length).toBeGreaterThan(30);
      const statuses = new Map<number, number>();
      // The data as the last request left it: nothing else changes it between two requests.
      let before = await snapshot();
      for (const op of ops) {
        const outcome = await fc.check(
          fc.asyncProperty(op.request, async ({ url, body, token }) => {
            const res = await send(op.method, url, body, token);
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status >= 500) throw new Error(`${op.method} ${op.path} answered ${res.status}: ${res.text.slice(0, 500)}`);
            if (res.status >= 400) {
              expect(res.json).toBe(true);
              const err = errorBody(JSON.parse(res.text));
              expect(err.statusCode).toBe(res.status);
              expect(await snapshot()).toEqual(before);
            } else before = await snapshot();
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
        if (outcome.failed)
          throw new Error(`${op.method} ${op.path} (seed ${SEED}): ${short(outcome.counterexample)}\n${short(outcome.errorInstance)}`);
      }
      const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
      const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
      console.log(`fuzz: ${sent} REST requests over ${ops.length} operations (${byStatus.join(', ')})`);
      expect(loggedErrors).toEqual([]);
    },
    TIME_LIMIT,
  );
});

// ---------------------------------------------------------------------------------------------
// Sockets: every call of the agent and framework protocols, valid messages with hostile parts

const TASK = { taskId: 'fuzz-task', name: 'fuzz', command: { shell: 'true' }, resources: [{ name: 'cpus', value: 0.1 }] };

/** A valid message of every call (a call added to the contracts without one here fails to compile). */
const AGENT_MESSAGES: { [K in keyof AgentCalls]: Parameters<AgentCalls[K]>[0] } = {
  register: {
    hostname: 'fuzz-agent',
    resources: [
      { name: 'cpus', value: 4 },
      { name: 'mem', value: 1024 },
      { name: 'ports', ranges: [[31000, 32000]] },
    ],
    attributes: { rack: 'r1' },
    tasks: [{ frameworkId: 'fuzz-framework', taskId: 'fuzz-task', state: 'RUNNING', resources: [{ name: 'cpus', value: 1 }] }],
  },
  heartbeat: {},
  status: {
    updateUuid: SOME_UUID,
    frameworkId: 'fuzz-framework',
    taskId: 'fuzz-task',
    agentId: 'fuzz-agent',
    state: 'RUNNING',
    timestamp: new Date().toISOString(),
    source: 'SOURCE_AGENT',
  },
  update: {
    resources: [
      { name: 'cpus', value: 4 },
      { name: 'mem', value: 2048 },
      { name: 'cpus', value: 2, revocable: true },
    ],
    attributes: { rack: 'r2' },
  },
  executorExited: { frameworkId: 'fuzz-framework', executorId: 'fuzz-executor', exitCode: 1, reason: 'REASON_EXECUTOR_TERMINATED' },
  executorMessage: { frameworkId: 'fuzz-framework', executorId: 'fuzz-executor', data: 'aGVsbG8=' },
};
/** Stands for the offer the framework holds now, so that accepts and declines reach past UNKNOWN_OFFER. */
const LIVE_OFFER = '6f1c5e2a-0000-4000-8000-00000000f022';
const FRAMEWORK_MESSAGES: { [K in keyof FrameworkCalls]: Parameters<FrameworkCalls[K]>[0] } = {
  subscribe: { name: 'fuzz', roles: ['eng', 'eng/ml'], capabilities: ['GPU_RESOURCES'], suppressedRoles: ['eng/ml'] },
  updateFramework: { frameworkId: 'fuzz-framework', name: 'fuzz', roles: ['eng'], capabilities: [], suppressedRoles: [] },
  accept: {
    offerIds: [LIVE_OFFER],
    operations: [
      { type: 'LAUNCH', tasks: [TASK] },
      { type: 'RESERVE', resources: [{ name: 'cpus', value: 1, reservation: 'eng' }] },
    ],
    refuseSeconds: 0,
  },
  decline: { offerIds: [LIVE_OFFER], refuseSeconds: 0 },
  suppress: { roles: ['eng'] },
  revive: { roles: ['eng'] },
  kill: { taskId: 'fuzz-task', gracePeriodSeconds: 1 },
  acknowledge: { taskId: 'fuzz-task', updateUuid: SOME_UUID },
  reconcile: { tasks: [{ taskId: 'fuzz-task' }] },
  inverseOffer: { inverseOfferId: SOME_UUID, accept: true },
  teardown: {},
  shutdownExecutor: { agentId: 'fuzz-agent', executorId: 'fuzz-executor' },
  message: { agentId: 'fuzz-agent', executorId: 'fuzz-executor', data: 'aGVsbG8=' },
  acknowledgeOperationStatus: { operationId: 'fuzz-operation', uuid: SOME_UUID, agentId: 'fuzz-agent' },
  reconcileOperations: { operations: [{ operationId: 'fuzz-operation', agentId: 'fuzz-agent' }] },
};

type Path = Array<string | number>;

/** Every place in a value: the value itself, each member of its objects and arrays. */
function placesOf(value: unknown, path: Path = []): Path[] {
  const out: Path[] = [path];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...placesOf(v, [...path, i])));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out.push(...placesOf(v, [...path, k]));
  return out;
}

/** `base` with the value at `path` replaced (or, with `extraKey`, a member added there). */
function withValue(base: unknown, path: Path, value: unknown, extraKey?: string): unknown {
  if (!path.length) {
    if (extraKey === undefined) return value;
    return base !== null && typeof base === 'object' && !Array.isArray(base) ? { ...base, [extraKey]: value } : value;
  }
  const [head, ...rest] = path;
  if (Array.isArray(base)) return base.map((v: unknown, i) => (i === head ? withValue(v, rest, value, extraKey) : v));
  const copy = { ...(base as Record<string, unknown>) };
  copy[head] = withValue(copy[head], rest, value, extraKey);
  return copy;
}

/** A hostile value of the kind found at a place (a string for a string), sometimes of any kind. */
function hostileLike(value: unknown): fc.Arbitrary<unknown> {
  const alike = typeof value === 'string' ? hostileString : typeof value === 'number' ? hostileNumber : hostileValue;
  return fc.oneof({ weight: 3, arbitrary: alike }, { weight: 1, arbitrary: hostileValue });
}

function valueAt(base: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], base);
}

/** A valid message with one hostile part: a value replaced, a member added, or the whole message. */
function hostileMessage(base: unknown): fc.Arbitrary<unknown> {
  const places = placesOf(base);
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(...places).chain((path) => hostileLike(valueAt(base, path)).map((v) => withValue(base, path, v))),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...places), hostileString, hostileValue).map(([path, k, v]) => withValue(base, path, v, k)),
    },
    { weight: 1, arbitrary: hostileValue },
  );
}

function connect(namespace: string): Promise<Socket> {
  const socket = io(`${t.cp.url}${namespace}`, {
    auth: { token: ADMIN_TOKEN },
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

async function call(socket: Socket, event: string, payload: unknown, timeoutMs = 10_000): Promise<Reply> {
  return (await socket.timeout(timeoutMs).emitWithAck(event, payload)) as Reply;
}

describe('sockets: every call of the agent and framework protocols', () => {
  let agent: Socket;
  let framework: Socket;

  let sentMessages = 0;
  let liveOffer: string | undefined;
  const replies = new Map<string, number>();

  beforeAll(async () => {
    t = await startTarget();
    agent = await connect(AGENTS_NAMESPACE);
    framework = await connect(FRAMEWORKS_NAMESPACE);
    framework.on('offers', (m: { offers: Array<{ id: string }> }) => (liveOffer = m.offers.at(-1)?.id ?? liveOffer));
    expect(await call(agent, 'register', AGENT_MESSAGES.register)).toMatchObject({ ok: true });
    expect(await call(framework, 'subscribe', FRAMEWORK_MESSAGES.subscribe)).toMatchObject({ ok: true });
    await until(() => liveOffer !== undefined, 15_000, 'an offer to the fuzzing framework');
  });
  afterAll(async () => {
    const byCode = [...replies].sort(([a], [b]) => a.localeCompare(b)).map(([code, n]) => `${code}: ${n}`);
    console.log(`fuzz: ${sentMessages} socket messages over ${calls.length} calls (${byCode.join(', ')})`);
    agent.disconnect();
    framework.disconnect();
    await t.close();
  });

  const calls = [
    ...Object.entries(AGENT_MESSAGES).map(([event, base]) => ({ namespace: 'agent' as const, event, base })),
    // Teardown would end the framework's session: its hostile messages only (never the valid `{}`).
    ...Object.entries(FRAMEWORK_MESSAGES).map(([event, base]) => ({ namespace: 'framework' as const, event, base })),
  ];

  it.each(calls)(
    '$namespace $event: hostile messages are refused or handled, never INTERNAL_ERROR',
    async ({ namespace, event, base }) => {
      const socket = () => (namespace === 'agent' ? agent : framework);
      // null and undefined stand for `{}`, the valid teardown.
      const messages =
        event === 'teardown' ? hostileMessage(base).filter((m) => m != null && JSON.stringify(m) !== '{}') : hostileMessage(base);
      const outcome = await fc.check(
        fc.asyncProperty(messages, async (message) => {
          const text = JSON.stringify(message) as string | undefined;
          const live =
            liveOffer !== undefined && text?.includes(LIVE_OFFER)
              ? (JSON.parse(text.replaceAll(LIVE_OFFER, liveOffer)) as unknown)
              : message;
          const reply = await call(socket(), event, live);
          const outcome = reply.ok ? 'ok' : reply.error.code;
          replies.set(outcome, (replies.get(outcome) ?? 0) + 1);
          if (!reply.ok) expect(reply.error.code).not.toBe('INTERNAL_ERROR');
          expect(socket().connected).toBe(true);
        }),
        { seed: SEED, numRuns: SOCKET_RUNS, endOnFailure: true },
      );
      sentMessages += SOCKET_RUNS;
      if (outcome.failed)
        throw new Error(`${namespace} ${event} (seed ${SEED}): ${short(outcome.counterexample)}\n${short(outcome.errorInstance)}`);
      expect(loggedErrors).toEqual([]);
    },
    TIME_LIMIT,
  );

  it('reconciles 100,000 task ids (more than PostgreSQL binds in one statement)', async () => {
    const tasks = Array.from({ length: 100_000 }, (_, i) => ({ taskId: `task-${i}` }));
    // What is checked is the answer, not its speed: on two busy cores 100,000 answers take a while.
    expect(await call(framework, 'reconcile', { tasks }, 40_000)).toEqual({ ok: true });
    expect(await call(framework, 'reconcile', { tasks: [...tasks, { taskId: 'one-too-many' }] }, 40_000)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE' },
    });
  }, 90_000);

  it('refuses NUL bytes and nesting 10,000 deep as INVALID_MESSAGE, naming where', async () => {
    expect(await call(framework, 'kill', { taskId: 'a\u0000b' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_MESSAGE', message: 'invalid message: taskId: must not contain the NUL character (U+0000)' },
    });
    expect(await call(agent, 'heartbeat', nested(1_000))).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE' } });
    // Deeper than socket.io-client can encode: the packet written as text, acknowledged as call 9999.
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const replied = new Promise<unknown>((resolve) => {
      const engine = agent.io.engine as unknown as { on(e: 'packet', l: (p: { data?: unknown }) => void): void; write(m: string): void };
      engine.on('packet', (p) => {
        if (typeof p.data === 'string' && p.data.startsWith(`3${AGENTS_NAMESPACE},9999`))
          resolve(JSON.parse(p.data.slice(p.data.indexOf('['))));
      });
      engine.write(`2${AGENTS_NAMESPACE},9999["heartbeat",${deep}]`);
    });
    expect(await replied).toMatchObject([{ ok: false, error: { code: 'INVALID_MESSAGE' } }]);
    expect(await call(agent, 'heartbeat', {})).toEqual({ ok: true });
    expect(loggedErrors).toEqual([]);
  });
});
