/**
 * Reservations, maintenance and the whitelist from the operator's terminal:
 *   arbiter reserve AGENT_ID ROLE RESOURCES [--label k=v]...   e.g. reserve a1 eng "cpus:2;mem:4096"
 *   arbiter unreserve RESERVATION_ID
 *   arbiter reservations list [--agent ID] [--role R]
 *   arbiter maintenance schedule                 print the schedule
 *   arbiter maintenance schedule HOST... --start WHEN [--duration D]   add a window
 *   arbiter maintenance schedule --file FILE.json | --clear           replace it
 *   arbiter maintenance start|stop HOST...       machines go DOWN, or come back UP
 *   arbiter maintenance status
 *   arbiter whitelist [show] | add HOST... | rm HOST... | set HOST... | clear
 * WHEN is an ISO time, `now`, or `+DURATION` (+10m, +2h); D is a duration (30m, 2h, 1d).
 */
import * as fs from 'node:fs';
import type { Schema } from '@arbiter/contracts';
import type { Command } from 'commander';
import { UsageError } from '../../ops/errors';
import { action, connect, connectionOptions, enc, type OutputFlags, query, readOptions, show, watchOptions } from '../../ops/output';
import { renderTable } from '../../ops/table';

type Schedule = Schema<'ScheduleDto'>;
type Status = Schema<'MaintenanceStatusDto'>;
type Reservation = Schema<'ReservationDto'>;

const UNIT_S: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `30m`, `2h`, `1d`, `90s` or `90` -> seconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw]?)$/.exec(text.trim());
  if (!m) throw new UsageError(`${flag}: '${text}' must be a duration like 30m, 2h or 1d`);
  return Math.round(Number(m[1]) * UNIT_S[m[2] || 's']);
}

/** `now`, `+10m` or an ISO time -> ISO time. */
export function parseWhen(text: string, now = Date.now()): string {
  const t = text.trim();
  if (t === 'now') return new Date(now).toISOString();
  if (t.startsWith('+')) return new Date(now + parseDuration(t.slice(1), '--start') * 1000).toISOString();
  const ms = Date.parse(t);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(t))
    throw new UsageError(`--start: '${text}' must be now, +DURATION (+10m) or an ISO time`);
  return new Date(ms).toISOString();
}

export function scheduleTable(s: Schedule): string {
  if (!s.windows.length) return '(no maintenance scheduled)';
  return renderTable(
    [
      { header: 'machines', value: (w: Schedule['windows'][number]) => w.machines.map((m) => m.hostname ?? m.ip).join(',') },
      { header: 'start', value: (w) => w.unavailability.start },
      {
        header: 'duration',
        value: (w) => (w.unavailability.durationSeconds == null ? 'until stopped' : `${w.unavailability.durationSeconds}s`),
      },
    ],
    s.windows,
  );
}

export function statusTable(s: Status): string {
  const rows = [
    ...s.downMachines.map((m) => ({ machine: m.hostname || m.ip, mode: 'DOWN', answers: '' })),
    ...s.drainingMachines.map((d) => ({
      machine: d.machine.hostname || d.machine.ip,
      mode: 'DRAINING',
      answers: d.statuses.map((x) => `${x.frameworkId}:${x.status}`).join(' '),
    })),
  ];
  if (!rows.length) return '(no machine in maintenance)';
  return renderTable(
    [
      { header: 'machine', value: (r: (typeof rows)[number]) => r.machine },
      { header: 'mode', value: (r) => r.mode },
      { header: 'inverse offer answers', value: (r) => r.answers },
    ],
    rows,
  );
}

const machines = (hosts: string[]) => ({ machines: hosts.map((hostname) => ({ hostname })) });

interface ScheduleFlags extends OutputFlags {
  start?: string;
  duration?: string;
  file?: string;
  clear?: boolean;
}

function registerMaintenance(program: Command): void {
  const maintenance = program.command('maintenance').description('maintenance: schedule windows, take machines DOWN and bring them back');
  readOptions(
    maintenance
      .command('schedule')
      .description('print the schedule; with hostnames add a window; --file or --clear replaces it')
      .argument('[hostnames...]', 'machines of a new window')
      .option('--start <when>', 'when the window starts: now, +10m, or an ISO time (default now)')
      .option('--duration <d>', 'how long it lasts, e.g. 2h (default: until maintenance is stopped)')
      .option('--file <file>', 'a JSON schedule ({"windows": [...]}, as `--json` prints it) that replaces the schedule')
      .option('--clear', 'remove every window (machines DOWN stay)'),
  ).action(
    action(async (hosts: string[], flags: ScheduleFlags) => {
      const modes = [hosts.length > 0, flags.file !== undefined, Boolean(flags.clear)].filter(Boolean).length;
      if (modes > 1) throw new UsageError('give hostnames, --file or --clear: one of them');
      if (!hosts.length && (flags.start || flags.duration)) throw new UsageError('--start and --duration need the hostnames of the window');
      let next: Schedule | undefined;
      if (flags.file !== undefined) {
        try {
          next = JSON.parse(fs.readFileSync(flags.file, 'utf8')) as Schedule;
        } catch (err) {
          throw new UsageError(`--file: ${(err as Error).message}`);
        }
      } else if (flags.clear) next = { windows: [] };
      const client = await connect(flags);
      if (hosts.length) {
        const durationSeconds = flags.duration === undefined ? null : parseDuration(flags.duration, '--duration');
        const current = await client.call<Schedule>('GET', '/api/v1/maintenance/schedule');
        const window = { ...machines(hosts), unavailability: { start: parseWhen(flags.start ?? 'now'), durationSeconds } };
        next = { windows: [...current.windows, window] };
      }
      if (next === undefined) return show(flags, () => client.call<Schedule>('GET', '/api/v1/maintenance/schedule'), scheduleTable);
      const saved = await client.call<Schedule>('PUT', '/api/v1/maintenance/schedule', next);
      if (flags.json) console.log(JSON.stringify(saved, null, 2));
      else console.log(scheduleTable(saved));
    }),
  );
  for (const [name, description] of [
    ['start', 'start maintenance: the machines go DOWN (their agents get no offers)'],
    ['stop', 'stop maintenance: the machines come back UP and leave the schedule'],
  ] as const)
    readOptions(maintenance.command(name).description(description).argument('<hostnames...>')).action(
      action(async (hosts: string[], flags: OutputFlags) => {
        const client = await connect(flags);
        const status = await client.call<Status>('POST', `/api/v1/maintenance/${name}`, machines(hosts));
        if (flags.json) console.log(JSON.stringify(status, null, 2));
        else console.log(`${hosts.join(', ')}: ${name === 'start' ? 'DOWN' : 'UP'}\n${statusTable(status)}`);
      }),
    );
  watchOptions(maintenance.command('status').description("machines' modes and frameworks' answers to inverse offers")).action(
    action(async (flags: OutputFlags) => {
      const client = await connect(flags);
      await show(flags, () => client.call<Status>('GET', '/api/v1/maintenance/status'), statusTable);
    }),
  );
}

function registerWhitelist(program: Command): void {
  const whitelist = program.command('whitelist').description('the agent whitelist: only whitelisted hostnames get offered');
  const say = (w: { hostnames: string[] | null }) =>
    w.hostnames === null
      ? 'no whitelist: every agent is offered'
      : w.hostnames.length
        ? w.hostnames.join('\n')
        : '(empty whitelist: no agent is offered)';
  const change = (name: string, description: string, method: string, body: (hosts: string[]) => object, variadic = true) =>
    readOptions(
      whitelist
        .command(name)
        .description(description)
        .argument(variadic ? '<hostnames...>' : '[hostnames...]'),
    ).action(
      action(async (hosts: string[], flags: OutputFlags) => {
        const client = await connect(flags);
        const w = await client.call<{ hostnames: string[] | null }>(method, '/api/v1/whitelist', body(hosts));
        if (flags.json) console.log(JSON.stringify(w, null, 2));
        else console.log(say(w));
      }),
    );
  readOptions(whitelist.command('show', { isDefault: true }).description('print the whitelist')).action(
    action(async (flags: OutputFlags) => {
      const client = await connect(flags);
      await show(flags, () => client.call<{ hostnames: string[] | null }>('GET', '/api/v1/whitelist'), say);
    }),
  );
  change('add', 'add hostnames to the whitelist', 'PATCH', (add) => ({ add }));
  change('rm', 'remove hostnames from the whitelist (with none set, one of every other agent starts)', 'PATCH', (remove) => ({ remove }));
  change('set', 'replace the whitelist (no hostnames: an empty one, no agent is offered)', 'PUT', (hostnames) => ({ hostnames }), false);
  change('clear', 'remove the whitelist: every agent is offered', 'PUT', () => ({ hostnames: null }), false);
}

interface ReserveFlags extends OutputFlags {
  label?: string[];
  agent?: string;
  role?: string;
}

function registerReservations(program: Command): void {
  readOptions(
    program
      .command('reserve')
      .description("reserve an agent's free unreserved resources for a role")
      .argument('<agent-id>')
      .argument('<role>')
      .argument('<resources>', 'Mesos text, e.g. "cpus:2;mem:4096"')
      .option('--label <key=value>', 'a label (repeatable)', (v: string, acc: string[] | undefined) => [...(acc ?? []), v]),
  ).action(
    action(async (agentId: string, role: string, resources: string, flags: ReserveFlags) => {
      const labels: Record<string, string> = {};
      for (const l of flags.label ?? []) {
        const i = l.indexOf('=');
        if (i <= 0) throw new UsageError(`--label: '${l}' must read key=value`);
        labels[l.slice(0, i)] = l.slice(i + 1);
      }
      const client = await connect(flags);
      const r = await client.call<Reservation>('POST', '/api/v1/reservations', {
        agentId,
        role,
        resources,
        ...(flags.label ? { labels } : {}),
      });
      if (flags.json) console.log(JSON.stringify(r, null, 2));
      else console.log(`reservation ${r.id}: ${r.resourcesText} of agent ${r.agentId} for ${r.role}`);
    }),
  );
  connectionOptions(
    program
      .command('unreserve')
      .description('give reserved resources back (refused while the role uses them)')
      .argument('<reservation-id>'),
  ).action(
    action(async (id: string, flags: OutputFlags) => {
      const client = await connect(flags);
      await client.call('DELETE', `/api/v1/reservations/${enc(id)}`);
      console.log(`reservation ${id} removed`);
    }),
  );
  readOptions(
    program
      .command('reservations')
      .description('reservations, newest first')
      .command('list')
      .option('--agent <id>', "an agent's reservations")
      .option('--role <role>', "a role's reservations"),
  ).action(
    action(async (flags: ReserveFlags) => {
      const client = await connect(flags);
      const q = query({ agentId: flags.agent, role: flags.role, limit: 500 });
      await show(
        flags,
        () => client.call<Schema<'ReservationPageDto'>>('GET', `/api/v1/reservations${q}`),
        (p) =>
          renderTable(
            [
              { header: 'id', value: (r: Reservation) => r.id },
              { header: 'agent', value: (r) => r.agentId },
              { header: 'role', value: (r) => r.role },
              { header: 'resources', value: (r) => r.resourcesText },
              { header: 'principal', value: (r) => r.principal },
              { header: 'created', value: (r) => r.createdAt },
            ],
            p.items,
          ),
      );
    }),
  );
}

export function registerMachines(program: Command): void {
  registerReservations(program);
  registerMaintenance(program);
  registerWhitelist(program);
}
