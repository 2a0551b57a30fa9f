import type { ViewScope } from '../common/view-scopes';
import type { Scope } from '../config/acls.rules';

/**
 * A SQL condition (for a repository's query builder) on `column` for a scope whose values may be
 * role patterns (`a/*`: every role below `a`), with its parameters.
 */
export function scopeCondition(column: string, scope: ViewScope, name: string): [string, Record<string, string[]>] {
  const values = 'only' in scope ? scope.only : scope.except;
  const exact = values.filter((v) => !v.endsWith('/*'));
  const below = values.filter((v) => v.endsWith('/*')).map((v) => v.slice(0, -1));
  const matches = `(${column} = ANY(:${name}) OR EXISTS (SELECT 1 FROM unnest(CAST(:${name}Below AS text[])) p WHERE starts_with(${column}, p)))`;
  return ['only' in scope ? matches : `NOT ${matches}`, { [name]: exact, [`${name}Below`]: below }];
}

/**
 * A SQL condition on `column` (a framework id) to the frameworks whose user a scope of users
 * allows (the view_tasks ACL; a framework with no user is ''), with its parameters; undefined
 * when the scope allows every user.
 */
export function frameworkUserCondition(column: string, users: Scope | undefined): [string, Record<string, string[]>] | undefined {
  const frameworks = "SELECT f.id FROM frameworks f WHERE COALESCE(f.user, '') = ANY(:users)";
  if (users && 'only' in users) return [`${column} IN (${frameworks})`, { users: users.only }];
  if (users?.except.length) return [`${column} NOT IN (${frameworks})`, { users: users.except }];
  return undefined;
}
