/**
 * Frameworks and offers from the operator's terminal:
 *   arbiter frameworks list [--state S] [--role R] [--limit N] [--watch]
 *   arbiter frameworks show FRAMEWORK_ID
 *   arbiter explain FRAMEWORK_ID [--cycles N]    why it got offers, or did not
 *   arbiter offers list [--state S] [--framework ID] [--agent ID] [--limit N] [--watch]
 *   arbiter offers show OFFER_ID                 looked up among the newest 5,000 offers
 */
import type { Schema } from '@arbiter/contracts';
import type { Command } from 'commander';
import { UsageError } from '../../ops/errors';
import {
  action,
  ago,
  amounts,
  connect,
  type Client,
  enc,
  intFlag,
  type OutputFlags,
  query,
  readOptions,
  show,
  watchOptions,
} from '../../ops/output';
import { renderFields, renderTable } from '../../ops/table';
import { ApiError } from '../../ops/errors';

type Framework = Schema<'FrameworkDto'>;
type Offer = Schema<'OfferDto'>;

export function frameworksTable(list: readonly Framework[]): string {
  return renderTable<Framework>(
    [
      { header: 'id', value: (f) => f.id },
      { header: 'name', value: (f) => f.name },
      { header: 'state', value: (f) => (f.state === 'ACTIVE' && !f.connected ? 'DISCONNECTED' : f.state) },
      { header: 'roles', value: (f) => f.roles.join(',') },
      { header: 'tasks', value: (f) => f.activeTasks },
      { header: 'offers', value: (f) => f.outstandingOffers },
      { header: 'share', value: (f) => f.dominantShare.toFixed(3), align: 'right' },
      { header: 'principal', value: (f) => f.principal },
    ],
    list,
  );
}

export function frameworkFields(f: Framework): string {
  return renderFields([
    ['ID', f.id],
    ['Name', f.name],
    ['State', f.state],
    ['Connected', f.connected],
    ['Protocol', f.protocol],
    ['Principal', f.principal],
    ['Roles', f.roles.join(', ')],
    ['Suppressed', f.suppressedRoles.join(', ')],
    ['Capabilities', f.capabilities.join(', ')],
    ['Active tasks', f.activeTasks],
    ['Offers held', f.outstandingOffers],
    ['Used', amounts(f.used)],
    ['Dominant share', f.dominantShare.toFixed(3)],
    ['Failover timeout', `${f.failoverTimeoutSeconds} s`],
    ['Web UI', f.webuiUrl],
    ['Registered', f.registeredAt],
    ['Disconnected', f.disconnectedAt],
    ['Completed', f.completedAt],
  ]);
}

export function offersTable(list: readonly Offer[]): string {
  return renderTable<Offer>(
    [
      { header: 'id', value: (o) => o.id },
      { header: 'state', value: (o) => o.state },
      { header: 'framework', value: (o) => o.frameworkId },
      { header: 'agent', value: (o) => o.agentId },
      { header: 'role', value: (o) => o.role },
      { header: 'resources', value: (o) => o.resourcesText },
      { header: 'created', value: (o) => ago(o.createdAt) },
    ],
    list,
  );
}

export function explainText(e: Schema<'ExplainDto'>): string {
  const reasons = Object.entries(e.reasons).sort((a, b) => b[1] - a[1]);
  const lines = [
    `framework ${e.frameworkId}: ${e.offersReceived} offer(s) in the last ${e.cyclesExamined} cycle(s)`,
    ...e.summary.map((s) => `  - ${s}`),
  ];
  if (reasons.length)
    lines.push(
      '',
      renderTable(
        [
          { header: 'passed over because', value: (r: [string, number]) => r[0] },
          { header: 'cycles', value: (r) => r[1] },
        ],
        reasons,
      ),
    );
  return lines.join('\n');
}

interface ListFlags extends OutputFlags {
  state?: string;
  role?: string;
  framework?: string;
  agent?: string;
  limit?: string;
  cycles?: string;
}

const limitOf = (flags: ListFlags) => intFlag(flags.limit, '--limit', 1, 500) ?? 100;
const more = (page: { items: unknown[]; total: number }) =>
  page.total > page.items.length ? `\n(${page.items.length} of ${page.total}: --limit shows more)` : '';

/** An offer by id: the offers endpoint lists, newest first; the newest 5,000 are searched. */
async function findOffer(client: Client, id: string): Promise<Offer> {
  for (let offset = 0; offset < 5000; offset += 500) {
    const page = await client.call<Schema<'OfferPageDto'>>('GET', `/api/v1/offers${query({ limit: 500, offset })}`);
    const hit = page.items.find((o) => o.id === id);
    if (hit) return hit;
    if (page.items.length < 500) break;
  }
  throw new ApiError(404, 'OFFER_NOT_FOUND', `no offer with id '${id}' among the newest 5,000 (arbiter offers list shows them)`);
}

export function registerFrameworks(program: Command): void {
  const frameworks = program.command('frameworks').description('frameworks: list them, or show one');
  watchOptions(
    frameworks
      .command('list')
      .description('the frameworks with their roles, tasks, offers and dominant share')
      .option('--state <state>', 'ACTIVE, INACTIVE or COMPLETED')
      .option('--role <role>', 'frameworks subscribed to this role')
      .option('--limit <n>', 'at most this many (default 100, at most 500)'),
  ).action(
    action(async (flags: ListFlags) => {
      const client = await connect(flags);
      const q = query({ state: flags.state?.toUpperCase(), role: flags.role, limit: limitOf(flags) });
      await show(
        flags,
        () => client.call<Schema<'FrameworkPageDto'>>('GET', `/api/v1/frameworks${q}`),
        (p) => frameworksTable(p.items) + more(p),
      );
    }),
  );
  watchOptions(frameworks.command('show').description('one framework in full').argument('<framework-id>')).action(
    action(async (id: string, flags: OutputFlags) => {
      const client = await connect(flags);
      await show(flags, () => client.call<Framework>('GET', `/api/v1/frameworks/${enc(id)}`), frameworkFields);
    }),
  );

  readOptions(
    program
      .command('explain')
      .description('why a framework got offers, or did not, in the recent allocation cycles')
      .argument('<framework-id>')
      .option('--cycles <n>', "how many recent cycles to examine (default: the API's, 1 to 1000)"),
  ).action(
    action(async (id: string, flags: ListFlags) => {
      const client = await connect(flags);
      const q = query({ cycles: intFlag(flags.cycles, '--cycles', 1, 1000) });
      await show(flags, () => client.call<Schema<'ExplainDto'>>('GET', `/api/v1/frameworks/${enc(id)}/explain${q}`), explainText);
    }),
  );

  const offers = program.command('offers').description('offers: what the allocator offered to whom');
  watchOptions(
    offers
      .command('list')
      .description('offers, newest first')
      .option('--state <state>', 'OUTSTANDING, ACCEPTED, DECLINED, RESCINDED...')
      .option('--framework <id>', "a framework's offers")
      .option('--agent <id>', "offers of an agent's resources")
      .option('--limit <n>', 'at most this many (default 100, at most 500)'),
  ).action(
    action(async (flags: ListFlags) => {
      const client = await connect(flags);
      const q = query({ state: flags.state?.toUpperCase(), frameworkId: flags.framework, agentId: flags.agent, limit: limitOf(flags) });
      await show(
        flags,
        () => client.call<Schema<'OfferPageDto'>>('GET', `/api/v1/offers${q}`),
        (p) => offersTable(p.items) + more(p),
      );
    }),
  );
  readOptions(offers.command('show').description('one offer').argument('<offer-id>')).action(
    action(async (id: string, flags: OutputFlags) => {
      if (!id.trim()) throw new UsageError('an offer id is needed');
      const client = await connect(flags);
      await show(
        flags,
        () => findOffer(client, id),
        (o) =>
          renderFields([
            ['ID', o.id],
            ['State', o.state],
            ['Framework', o.frameworkId],
            ['Agent', o.agentId],
            ['Role', o.role],
            ['Resources', o.resourcesText],
            ['Cycle', o.cycleId],
            ['Created', o.createdAt],
            ['Closed', o.closedAt],
          ]),
      );
    }),
  );
}
