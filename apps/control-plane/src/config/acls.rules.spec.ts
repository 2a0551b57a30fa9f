import { aclsToDocument, type Acls, isAuthorized, parseAcls, roleValueProblems, scopeOf } from './acls.rules';

function acls(doc: unknown): Acls {
  const r = parseAcls(doc);
  if (!r.ok) throw new Error(r.errors.join('; '));
  return r.acls;
}

describe('ACLs (Mesos local authorizer semantics)', () => {
  it('is permissive with no ACLs, restrictive when permissive is false', () => {
    expect(isAuthorized(acls({}), 'update_quotas', 'anyone', 'a')).toBe(true);
    expect(isAuthorized(acls({ permissive: false }), 'update_quotas', 'anyone', 'a')).toBe(false);
  });

  it('decides by the first entry whose subjects and objects match', () => {
    const a = acls({
      permissive: false,
      register_frameworks: [
        { principals: { values: ['team-a'] }, roles: { values: ['a', 'a/*'] } },
        { principals: { type: 'ANY' }, roles: { values: ['shared'] } },
        { principals: { values: ['team-a'] }, roles: { type: 'NONE' } },
      ],
    });
    expect(isAuthorized(a, 'register_frameworks', 'team-a', 'a')).toBe(true);
    expect(isAuthorized(a, 'register_frameworks', 'team-a', 'a/ml')).toBe(true);
    expect(isAuthorized(a, 'register_frameworks', 'team-a', 'ab')).toBe(false);
    expect(isAuthorized(a, 'register_frameworks', 'team-a', 'shared')).toBe(true);
    expect(isAuthorized(a, 'register_frameworks', 'team-b', 'shared')).toBe(true);
    expect(isAuthorized(a, 'register_frameworks', 'team-b', 'a')).toBe(false);
  });

  it('treats NONE as matching everything and denying', () => {
    const a = acls({ update_weights: [{ principals: { type: 'NONE' }, roles: { values: ['prod'] } }] });
    expect(isAuthorized(a, 'update_weights', 'ops', 'prod')).toBe(false);
    expect(isAuthorized(a, 'update_weights', 'ops', 'dev')).toBe(true);
  });

  it('matches role patterns only for role objects', () => {
    const a = acls({ permissive: false, run_tasks: [{ principals: { values: ['p'] }, users: { values: ['svc/*'] } }] });
    expect(isAuthorized(a, 'run_tasks', 'p', 'svc/x')).toBe(false);
  });

  it('matches agent values with * as hostname globs within one DNS label, other objects exactly', () => {
    const a = acls({
      permissive: false,
      register_agents: [{ principals: { values: ['p'] }, agents: { values: ['node-*', '*.rack-1.example.com'] } }],
      run_tasks: [{ principals: { values: ['p'] }, users: { values: ['svc-*'] } }],
    });
    expect(isAuthorized(a, 'register_agents', 'p', 'node-1')).toBe(true);
    expect(isAuthorized(a, 'register_agents', 'p', 'node-')).toBe(true);
    expect(isAuthorized(a, 'register_agents', 'p', 'a7.rack-1.example.com')).toBe(true);
    expect(isAuthorized(a, 'register_agents', 'p', 'node-1.evil.com')).toBe(false);
    expect(isAuthorized(a, 'register_agents', 'p', 'x.y.rack-1.example.com')).toBe(false);
    expect(isAuthorized(a, 'register_agents', 'p', 'anode-1')).toBe(false);
    expect(isAuthorized(a, 'register_agents', 'p', 'a7.rack-1xexample.com')).toBe(false);
    expect(isAuthorized(a, 'register_agents', 'q', 'node-1')).toBe(false);
    expect(isAuthorized(a, 'run_tasks', 'p', 'svc-a')).toBe(false);
  });

  it('refuses unknown actions, unknown fields and missing sides with every problem named', () => {
    const r = parseAcls({ register_framework: [], run_tasks: [{ principals: { type: 'ANY' }, roles: { type: 'ANY' } }] });
    expect(r.ok).toBe(false);
    const bad = parseAcls({ run_tasks: [{ principals: { type: 'ANY' }, roles: { type: 'ANY' } }] });
    expect(bad).toEqual({
      ok: false,
      errors: ["run_tasks.0: unknown field 'roles' (expected 'principals' and 'users')", "run_tasks.0: 'users' is required"],
    });
    expect(parseAcls({ run_tasks: [{ principals: { type: 'SOME' }, users: { type: 'ANY' } }] }).ok).toBe(false);
  });

  it('holds role objects to the role rule: a role, or <role>/* for the roles below one', () => {
    const doc = (values: string[]) => acls({ reserve_resources: [{ principals: { type: 'ANY' }, roles: { values } }] });
    expect(roleValueProblems(doc(['eng', 'eng/ml/*', 'a@b']))).toEqual([]);
    expect(roleValueProblems(doc(['a:b', '*', 'eng/*/x', '..']))).toEqual(
      ["'a:b'", "'*'", "'eng/*/x'", "'..'"].map(
        (v) => expect.stringContaining(`reserve_resources.0.roles: ${v} must be a role path`) as unknown,
      ),
    );
    // Only role objects: users and machines are not roles.
    expect(roleValueProblems(acls({ run_tasks: [{ principals: { type: 'ANY' }, users: { values: ['a:b'] } }] }))).toEqual([]);
  });

  it('round-trips to the document form', () => {
    const doc = { permissive: false, view_frameworks: [{ principals: { values: ['v'] }, users: { values: ['alice'] } }] };
    expect(aclsToDocument(acls(doc))).toEqual(doc);
  });

  it('scopes a list: the values allowed, or the values refused', () => {
    const a = acls({
      view_frameworks: [
        { principals: { values: ['v'] }, users: { values: ['root'] } },
        { principals: { values: ['v'] }, users: { type: 'NONE' } },
        { principals: { type: 'ANY' }, users: { values: ['root'] } },
      ],
    });
    // 'v' may see root's frameworks, then nobody else's: an allow-list.
    expect(scopeOf(a, 'view_frameworks', 'v')).toEqual({ only: ['root'] });
    expect(scopeOf(a, 'view_frameworks', 'w')).toEqual({ except: [] });
    const b = acls({ permissive: true, view_tasks: [{ principals: { values: ['w'] }, users: { values: ['root'] } }] });
    expect(scopeOf(b, 'view_tasks', 'w')).toEqual({ except: [] });
    const c = acls({ view_tasks: [{ principals: { type: 'NONE' }, users: { values: ['root'] } }] });
    expect(scopeOf(c, 'view_tasks', 'w')).toEqual({ except: ['root'] });
  });
});
