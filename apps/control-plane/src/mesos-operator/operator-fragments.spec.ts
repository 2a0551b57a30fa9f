import { masterTypes, OPERATOR_JSON, OPERATOR_PROTOBUF } from './operator-encoding';
import { Fragment, FragmentList, RowCache } from './operator-fragments';
import type { Versioned } from './operator-state.repository';

interface Row {
  name: string;
  n: number;
}

const task = (name: string, state = 'TASK_RUNNING') => ({
  name,
  task_id: { value: name },
  framework_id: { value: 'f1' },
  agent_id: { value: 'a1' },
  state,
  resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 0.5 }, role: '*' }],
  statuses: [{ task_id: { value: name }, state, timestamp: 1.5 }],
});

/** A GET_STATE answer, with its task lists as given. */
const answer = (tasks: unknown, completed: unknown) => ({
  type: 'GET_STATE',
  get_state: {
    get_tasks: { tasks, unreachable_tasks: [], completed_tasks: completed },
    get_executors: { executors: [] },
    get_frameworks: {
      frameworks: [{ framework_info: { user: 'u', name: 'f', id: { value: 'f1' } }, active: true }],
      completed_frameworks: [],
    },
    get_agents: { agents: [], recovered_agents: [] },
  },
});

describe('operator answers made of fragments', () => {
  const running = [task('t1'), task('t2')];
  const ended = [task('t0', 'TASK_FINISHED')];
  const fragments = (objects: Array<Record<string, unknown>>) => new FragmentList(objects.map((o) => new Fragment(() => o)));
  const withFragments = answer(fragments(running), fragments(ended));
  const asPlain = answer(running, ended);

  it('writes the same JSON as the plain answer', () => {
    expect(OPERATOR_JSON.encodeResponse(withFragments).toString()).toBe(JSON.stringify(asPlain));
    expect(OPERATOR_JSON.encodeEvent({ type: 'SUBSCRIBED', subscribed: { get_state: withFragments.get_state } })).toEqual(
      OPERATOR_JSON.encodeEvent({ type: 'SUBSCRIBED', subscribed: { get_state: asPlain.get_state } }),
    );
  });

  it('writes protobuf that decodes to the plain answer', () => {
    const { response } = masterTypes();
    const decoded = (b: Buffer) =>
      response.toObject(response.decode(b), { enums: String, longs: Number, defaults: false }) as {
        get_state: { get_tasks: { tasks: Row[] } };
      };
    expect(decoded(OPERATOR_PROTOBUF.encodeResponse(withFragments))).toEqual(decoded(OPERATOR_PROTOBUF.encodeResponse(asPlain)));
    expect(decoded(OPERATOR_PROTOBUF.encodeResponse(withFragments)).get_state.get_tasks.tasks.map((t) => t.name)).toEqual(['t1', 't2']);
    // Empty lists of fragments, as empty arrays: the nested messages are still there.
    const empty = answer(fragments([]), fragments([]));
    expect(decoded(OPERATOR_PROTOBUF.encodeResponse(empty))).toEqual(decoded(OPERATOR_PROTOBUF.encodeResponse(answer([], []))));
  });

  it('builds and encodes a fragment once', () => {
    const build = jest.fn(() => task('t1'));
    const f = new Fragment(build);
    const { response } = masterTypes();
    const type = response.lookupType('mesos.v1.Task');
    expect(f.json()).toBe(f.json());
    expect(f.proto(type)).toBe(f.proto(type));
    expect(build).toHaveBeenCalledTimes(2);
  });
});

describe('RowCache', () => {
  const read = (rows: Record<string, Row & Versioned>) =>
    jest.fn((keys: string[]) => Promise.resolve(keys.flatMap((k) => (k in rows ? [rows[k]] : []))));
  const row = (key: string, stamp: string, n = 0) => ({ key, stamp, name: key, n });

  it('reads only the rows it does not hold at their version, in the order given', async () => {
    const cache = new RowCache<Row>();
    const first = read({ a: row('a', '1'), b: row('b', '1') });
    expect(
      (
        await cache.current(
          [
            { key: 'b', stamp: '1' },
            { key: 'a', stamp: '1' },
          ],
          first,
        )
      ).map((h) => h.row.name),
    ).toEqual(['b', 'a']);
    expect(first).toHaveBeenCalledWith(['b', 'a']);

    const second = read({ b: row('b', '2', 7), c: row('c', '1') });
    const held = await cache.current(
      [
        { key: 'a', stamp: '1' },
        { key: 'b', stamp: '2' },
        { key: 'c', stamp: '1' },
      ],
      second,
    );
    expect(second).toHaveBeenCalledWith(['b', 'c']);
    expect(held.map((h) => [h.row.name, h.row.n])).toEqual([
      ['a', 0],
      ['b', 7],
      ['c', 0],
    ]);

    // A key no longer named is dropped; one that vanished before its row was read is left out.
    const third = read({});
    expect(
      (
        await cache.current(
          [
            { key: 'c', stamp: '1' },
            { key: 'd', stamp: '1' },
          ],
          third,
        )
      ).map((h) => h.row.name),
    ).toEqual(['c']);
    expect(third).toHaveBeenCalledWith(['d']);
    expect(cache.size).toBe(1);
  });

  it('keeps a fragment while the row and what else it shows stay', async () => {
    const cache = new RowCache<Row>();
    const rows = { a: row('a', '1') };
    const build = (r: Row) => ({ name: r.name });
    const [h1] = await cache.current([{ key: 'a', stamp: '1' }], read(rows));
    const f1 = h1.fragment(build, 'used 1');
    const [h2] = await cache.current([{ key: 'a', stamp: '1' }], read(rows));
    expect(h2.fragment(build, 'used 1')).toBe(f1);
    const f2 = h2.fragment(build, 'used 2');
    expect(f2).not.toBe(f1);
    const [h3] = await cache.current([{ key: 'a', stamp: '2' }], read({ a: row('a', '2') }));
    expect(h3.fragment(build, 'used 2')).not.toBe(f2);
  });
});
