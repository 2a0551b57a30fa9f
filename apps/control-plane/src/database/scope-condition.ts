import type { ViewScope } from '../common/view-scopes';

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
