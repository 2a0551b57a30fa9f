/**
 * What happened, from the operator's terminal:
 *   arbiter audit [--actor P] [--action A] [--target-type T] [--target ID] [--since 1h] [--until T] [--limit N]
 *   arbiter history [--role R] [--framework ID] [--agent ID] [--since 10m] [--until T] [--limit N]
 *   arbiter history show CYCLE_ID          one allocation cycle: its offers and decisions
 * `audit` is the operator audit log (who changed what); `history` the allocation cycles (what
 * the allocator offered, and why not). --since and --until take a duration back from now (90s,
 * 10m, 2h, 7d) or a date.
 */
import type { Schema } from '@arbiter/contracts';
import type { Command } from 'commander';
import {
  action,
  amounts,
  connect,
  enc,
  intFlag,
  type OutputFlags,
  parseSince,
  query,
  readOptions,
  show,
  watchOptions,
} from '../../ops/output';
import { renderFields, renderTable } from '../../ops/table';

type Entry = Schema<'AuditEntryDto'>;
type Cycle = Schema<'CycleDto'>;

/** `{a: 1, b: 2}` -> `a=1 b=2`, short enough for a table cell. */
function brief(value: unknown, max = 60): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(' ')
      : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What an entry changed: the fields whose value differs between before and after (all of after when there was no before). */
export function change(e: Pick<Entry, 'before' | 'after'>): string {
  const before = e.before as Record<string, unknown> | null;
  const after = e.after as Record<string, unknown> | null;
  if (!before || !after || typeof before !== 'object' || typeof after !== 'object') return brief(after ?? before, 80);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
  );
  return brief(Object.fromEntries(keys.map((k) => [k, after[k] ?? null])), 80);
}

export function auditTable(items: readonly Entry[]): string {
  return renderTable<Entry>(
    [
      { header: 'at', value: (e) => e.at.replace('T', ' ').slice(0, 19) },
      { header: 'actor', value: (e) => e.actor },
      { header: 'action', value: (e) => e.action },
      { header: 'target', value: (e) => `${e.targetType}${e.targetId ? ` ${e.targetId}` : ''}` },
      { header: 'change', value: change },
    ],
    items,
  );
}

export function cyclesTable(items: readonly Cycle[]): string {
  return renderTable<Cycle>(
    [
      { header: 'id', value: (c) => c.id },
      { header: 'started', value: (c) => c.startedAt.replace('T', ' ').slice(0, 23) },
      { header: 'ms', value: (c) => Math.round(c.durationMs * 10) / 10 },
      { header: 'offers', value: (c) => c.offerCount },
      { header: 'passed over', value: (c) => brief(c.reasons, 80) },
    ],
    items,
  );
}

interface AuditFlags extends OutputFlags {
  actor?: string;
  action?: string;
  targetType?: string;
  target?: string;
  since?: string;
  until?: string;
  limit?: string;
  role?: string;
  framework?: string;
  agent?: string;
}

const more = (p: { items: unknown[]; total: number; totalCapped?: boolean }) =>
  p.total > p.items.length ? `\n(${p.items.length} of ${p.total}${p.totalCapped ? '+' : ''}: --limit or --since show others)` : '';

export function registerAudit(program: Command): void {
  watchOptions(
    program
      .command('audit')
      .description('the operator audit log, newest first: who changed what')
      .option('--actor <principal>', "one principal's entries")
      .option('--action <action>', 'one action, e.g. agent.drain, quota.update')
      .option('--target-type <type>', 'entries about one kind of thing: agent, role, framework, task...')
      .option('--target <id>', 'entries about one thing (its id)')
      .option('--since <when>', 'entries from then on: 90s, 10m, 2h, 7d back, or a date')
      .option('--until <when>', 'entries up to then (same forms)')
      .option('--limit <n>', 'at most this many (default 50, at most 500)'),
  ).action(
    action(async (flags: AuditFlags) => {
      const client = await connect(flags);
      const q = () =>
        query({
          actor: flags.actor,
          action: flags.action,
          targetType: flags.targetType,
          targetId: flags.target,
          since: flags.since === undefined ? undefined : parseSince(flags.since),
          until: flags.until === undefined ? undefined : parseSince(flags.until, '--until'),
          limit: intFlag(flags.limit, '--limit', 1, 500) ?? 50,
        });
      q();
      await show(
        flags,
        () => client.call<Schema<'AuditPageDto'>>('GET', `/api/v1/audit${q()}`),
        (p) => auditTable(p.items) + more(p),
      );
    }),
  );

  const history = program.command('history').description('allocation history: the cycles, what they offered and why not');
  watchOptions(
    history
      .command('list', { isDefault: true })
      .description('allocation cycles, newest first')
      .option('--role <role>', 'cycles that offered to this role')
      .option('--framework <id>', 'cycles that offered to this framework')
      .option('--agent <id>', "cycles that offered this agent's resources")
      .option('--since <when>', 'cycles from then on: 90s, 10m, 2h, 7d back, or a date')
      .option('--until <when>', 'cycles up to then (same forms)')
      .option('--limit <n>', 'at most this many (default 20, at most 500)'),
  ).action(
    action(async (flags: AuditFlags) => {
      const client = await connect(flags);
      const q = () =>
        query({
          role: flags.role,
          frameworkId: flags.framework,
          agentId: flags.agent,
          from: flags.since === undefined ? undefined : parseSince(flags.since),
          to: flags.until === undefined ? undefined : parseSince(flags.until, '--until'),
          limit: intFlag(flags.limit, '--limit', 1, 500) ?? 20,
        });
      q();
      await show(
        flags,
        () => client.call<Schema<'CyclePageDto'>>('GET', `/api/v1/allocations${q()}`),
        (p) => cyclesTable(p.items) + more(p),
      );
    }),
  );
  readOptions(history.command('show').description('one cycle: its offers and the shares after it').argument('<cycle-id>')).action(
    action(async (id: string, flags: OutputFlags) => {
      const client = await connect(flags);
      await show(
        flags,
        () => client.call<Schema<'CycleDetailDto'>>('GET', `/api/v1/allocations/${enc(id)}`),
        (c) => {
          const offers =
            (
              c as unknown as {
                offers?: Array<{
                  frameworkId: string;
                  agentId: string;
                  role: string;
                  resources?: Record<string, number>;
                  resourcesText?: string;
                }>;
              }
            ).offers ?? [];
          return [
            renderFields([
              ['Cycle', c.id],
              ['Started', c.startedAt],
              ['Duration', `${c.durationMs} ms`],
              ['Offers', c.offerCount],
              ['Passed over', brief(c.reasons, 200)],
            ]),
            '',
            offers.length
              ? renderTable(
                  [
                    { header: 'framework', value: (o: (typeof offers)[number]) => o.frameworkId },
                    { header: 'agent', value: (o) => o.agentId },
                    { header: 'role', value: (o) => o.role },
                    { header: 'resources', value: (o) => o.resourcesText ?? amounts(o.resources) },
                  ],
                  offers,
                )
              : '(no offers in this cycle)',
          ].join('\n');
        },
      );
    }),
  );
}
