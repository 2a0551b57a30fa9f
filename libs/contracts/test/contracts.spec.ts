import { Accept, ERROR_CODES, parseMessage, PROTOCOL_ERRORS, RegisterAgent, StatusUpdate, Subscribe } from '../src';

describe('wire contracts', () => {
  it('fills defaults of a minimal subscription', () => {
    const r = parseMessage(Subscribe, { name: 'batch', roles: ['eng/ml'] });
    expect(r).toEqual({
      ok: true,
      value: { name: 'batch', roles: ['eng/ml'], capabilities: [], failoverTimeoutSeconds: 0, suppressedRoles: [] },
    });
  });

  it.each([
    [{ name: 'x', roles: [] }, 'roles'],
    [{ name: 'x', roles: ['*'] }, 'roles.0'],
    [{ name: 'x', roles: ['a//b'] }, 'roles.0'],
    [{ name: 'x', roles: ['ok'], capabilities: ['TELEPORT'] }, 'capabilities.0'],
    [{ name: 'x', roles: ['ok'], failoverTimeoutSeconds: -1 }, 'failoverTimeoutSeconds'],
    [{ name: 'x', roles: ['ok'], colour: 'red' }, '(message)'],
  ])('refuses subscription %j, naming %s', (msg, path) => {
    const r = parseMessage(Subscribe, msg);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('INVALID_MESSAGE');
    expect((r.error.details?.issues as Array<{ path: string }>).map((i) => i.path)).toContain(path);
    expect(r.error.message).toContain(path);
  });

  it('checks offers, operations and tasks in an accept', () => {
    const ok = parseMessage(Accept, {
      offerIds: ['7d3e9c43-5ad4-4a39-9c3e-1a8c1b2f7e10'],
      operations: [
        {
          type: 'LAUNCH',
          tasks: [{ taskId: 't-1', name: 'sleep', command: { shell: 'sleep 1' }, resources: [{ name: 'cpus', value: 1 }] }],
        },
      ],
    });
    expect(ok.ok).toBe(true);
    // An offer id is any text (one never issued is UNKNOWN_OFFER), but not an empty one.
    const bad = parseMessage(Accept, { offerIds: [''], operations: [{ type: 'DESTROY' }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toMatch(/offerIds\.0.*operations\.0/s);
  });

  it('requires resources and a hostname to register an agent, and timestamps with offsets in updates', () => {
    expect(parseMessage(RegisterAgent, { hostname: 'h', resources: [] }).ok).toBe(false);
    expect(parseMessage(RegisterAgent, { hostname: 'h', resources: [{ name: 'cpus', value: 2 }] })).toMatchObject({
      ok: true,
      value: { attributes: {}, tasks: [] },
    });
    const update = {
      updateUuid: '7d3e9c43-5ad4-4a39-9c3e-1a8c1b2f7e10',
      frameworkId: 'f',
      taskId: 't',
      agentId: 'a',
      state: 'RUNNING',
      timestamp: '2026-11-23T10:00:00.000Z',
      source: 'SOURCE_AGENT',
    };
    expect(parseMessage(StatusUpdate, update).ok).toBe(true);
    expect(parseMessage(StatusUpdate, { ...update, state: 'DANCING' }).ok).toBe(false);
    expect(parseMessage(StatusUpdate, { ...update, timestamp: 'yesterday' }).ok).toBe(false);
  });
});

describe('error codes', () => {
  it('registers every protocol error, and gives every code a status or marks it socket-only', () => {
    for (const code of Object.values(PROTOCOL_ERRORS)) expect(ERROR_CODES).toHaveProperty(code);
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z_]+$/);
      if (status !== null) expect(status >= 400 && status < 600).toBe(true);
    }
  });
});
