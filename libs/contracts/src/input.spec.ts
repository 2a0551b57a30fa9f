import { inputProblem, textProblem } from './input';
import { parseMessage, ROLE_PATTERN, ResourceEntry, Role, StatusUpdate } from './common';

describe('inputProblem', () => {
  it.each([
    ['a string with NUL', { a: ['x', 'b\u0000c'] }, 'a.1', /NUL/],
    ['a lone high surrogate', { name: 'x\ud800' }, 'name', /surrogate/],
    ['a lone low surrogate', ['\udc00y'], '0', /surrogate/],
    ['a key with NUL', { ok: { 'k\u0000': 1 } }, 'ok.k\ufffd', /key must not contain the NUL/],
    ['the value itself', '\u0000', '(input)', /NUL/],
  ])('finds %s and its path', (_name, value, path, message) => {
    const problem = inputProblem(value);
    expect(problem?.path).toBe(path);
    expect(problem?.message).toMatch(message);
  });

  it('accepts clean values, surrogate pairs included', () => {
    expect(inputProblem({ a: [1, null, true, 'emoji \ud83d\ude00', { b: 'c' }] })).toBeUndefined();
    expect(textProblem('\ud83d\ude00')).toBeUndefined();
  });

  it('refuses nesting past the limit without recursing (10,000 levels)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(inputProblem(deep)?.message).toBe('nests deeper than 32 levels of objects and arrays');
    let ok: unknown = 1;
    for (let i = 0; i < 32; i++) ok = { a: ok };
    expect(inputProblem(ok)).toBeUndefined();
    expect(inputProblem({ a: ok })?.message).toMatch(/deeper than 32/);
    expect(inputProblem({ a: ok }, { maxDepth: 40 })).toBeUndefined();
  });
});

describe('Role: one rule for every role', () => {
  it.each(['eng', 'eng/ml/training', 'a.b', '.hidden', 'a@b', 'a+b', 'a-b', 'a_b'])('accepts %s', (role) => {
    expect(Role.safeParse(role).success).toBe(true);
  });

  it.each(['', '*', '.', '..', 'a/./b', 'a/..', '-a', 'a/-b', 'a:b', 'a b', 'a//b', '/a', 'a/', 'cpus(x)', 'a;b', 'x'.repeat(256)])(
    'refuses %j',
    (role) => {
      expect(Role.safeParse(role).success).toBe(false);
    },
  );

  it('is the rule of a resource reservation ("*" meaning unreserved)', () => {
    expect(ResourceEntry.safeParse({ name: 'cpus', value: 1, reservation: 'a:b' }).success).toBe(false);
    expect(ResourceEntry.safeParse({ name: 'cpus', value: 1, reservation: 'eng/ml' }).success).toBe(true);
    expect(ResourceEntry.safeParse({ name: 'cpus', value: 1, reservation: '*' }).success).toBe(true);
    expect(ROLE_PATTERN.test('eng/ml')).toBe(true);
  });
});

describe('ResourceEntry: what the allocator accepts', () => {
  it.each([
    ['a name with a space', { name: 'a b', value: 1 }],
    ['no amount', { name: 'cpus' }],
    ['two kinds of amount', { name: 'cpus', value: 1, set: ['a'] }],
    ['a reversed range', { name: 'ports', ranges: [[10, 1]] }],
    ['an empty set item', { name: 'disks', set: [''] }],
    ['an absurd scalar', { name: 'cpus', value: 1e13 }],
    ['an empty volume', { name: 'disk', value: 1, volume: '' }],
  ])('refuses %s', (_name, entry) => {
    expect(ResourceEntry.safeParse(entry).success).toBe(false);
  });
});

describe('StatusUpdate: times', () => {
  const update = (timestamp: string) => ({
    updateUuid: '0b6c5f7e-3a55-4a7e-8f0a-1c2d3e4f5a6b',
    frameworkId: 'fw-1',
    taskId: 't1',
    agentId: 'agent-1',
    state: 'RUNNING',
    timestamp,
    source: 'SOURCE_AGENT',
  });

  it.each(['2026-11-26T23:00:00.000Z', '2000-01-01T00:00:00Z', '2099-12-31T23:59:59+00:00'])('accepts %s', (t) => {
    expect(parseMessage(StatusUpdate, update(t)).ok).toBe(true);
  });

  it.each(['0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '2100-01-01T00:00:00Z', '9999-12-31T23:59:59Z'])(
    'refuses %s as INVALID_MESSAGE',
    (t) => {
      const parsed = parseMessage(StatusUpdate, update(t));
      expect(parsed).toMatchObject({ ok: false, error: { code: 'INVALID_MESSAGE', details: { issues: [{ path: 'timestamp' }] } } });
    },
  );
});
