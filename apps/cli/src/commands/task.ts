/**
 * `arbiter task ...`: a task's output and sandbox, through the control plane (which relays to
 * the task's agent; the view_tasks and access_sandboxes ACLs decide who may read them).
 *   arbiter task logs TASK_ID [--stderr] [--follow] [--tail BYTES]   the task's stdout (or stderr)
 *   arbiter task files TASK_ID [PATH]                                 a directory of its sandbox
 * TASK_ID is the task's id in the API (GET /api/v1/tasks). --follow reads on from where the last
 * read ended, every --interval, until the task has ended and its log is read to the end; a log
 * rotated meanwhile (shorter than what was read) is read again from its start.
 */
import { FILES_READ_MAX, isTerminalTaskState, type TaskState } from '@arbiter/contracts';
import type { Command } from 'commander';
import { call, type Connection, connection, run } from './access';
import { registerTaskKill } from './ops/tasks';

interface LogsFlags extends Connection {
  stderr?: boolean;
  follow?: boolean;
  tail?: string;
  interval?: string;
}

interface ReadAnswer {
  data: string;
  offset: number;
  length: number;
  size: number;
}

interface BrowseAnswer {
  entries: Array<{ path: string; type: string; size: number; mtime: number; mode: string; nlink: number; uid: number; gid: number }>;
  truncated: boolean;
  logs: { stdout: string; stderr: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const taskPath = (id: string) => `/api/v1/tasks/${encodeURIComponent(id)}`;

/** Reads `path` from `offset` to its end as it is now, writing the bytes out; resolves to the next offset and the size seen. */
async function readOn(opts: Connection, id: string, path: string, offset: number): Promise<{ offset: number; size: number }> {
  for (;;) {
    const q = new URLSearchParams({ path, offset: String(offset), encoding: 'base64' });
    const r = (await call(opts, 'GET', `${taskPath(id)}/files/read?${q.toString()}`)) as ReadAnswer;
    if (r.size < offset) return { offset, size: r.size };
    if (r.length) process.stdout.write(Buffer.from(r.data, 'base64'));
    offset = r.offset + r.length;
    if (r.length < FILES_READ_MAX) return { offset, size: r.size };
  }
}

async function logs(id: string, flags: LogsFlags): Promise<void> {
  // One client for every read (`call` keeps it per flags object): the token is found, or asked for, once.
  const opts = flags;
  const interval = opts.interval === undefined ? 1000 : Number(opts.interval);
  if (!(interval >= 100 && interval <= 60_000)) throw new Error(`--interval: '${opts.interval}' must be milliseconds from 100 to 60000`);
  const tail = opts.tail === undefined ? undefined : Number(opts.tail);
  if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0)) throw new Error(`--tail: '${opts.tail}' must be a number of bytes`);
  const where = (await call(opts, 'GET', `${taskPath(id)}/files`)) as BrowseAnswer;
  const path = opts.stderr ? where.logs.stderr : where.logs.stdout;
  let offset = 0;
  if (tail !== undefined) {
    const end = (await call(
      opts,
      'GET',
      `${taskPath(id)}/files/read?${new URLSearchParams({ path, offset: '-1' }).toString()}`,
    )) as ReadAnswer;
    offset = Math.max(0, end.offset - tail);
  }
  for (;;) {
    // The task's state first: once it has ended, what the read below returns is the whole rest.
    const ended = opts.follow ? isTerminalTaskState(((await call(opts, 'GET', taskPath(id))) as { state: TaskState }).state) : true;
    const read = await readOn(opts, id, path, offset);
    if (read.size < read.offset) {
      console.error(`(${path} was rotated: reading it from its start)`);
      offset = 0;
      continue;
    }
    offset = read.offset;
    if (ended) return;
    await sleep(interval);
  }
}

async function files(id: string, path: string | undefined, opts: Connection): Promise<void> {
  const q = path === undefined ? '' : `?${new URLSearchParams({ path }).toString()}`;
  const r = (await call(opts, 'GET', `${taskPath(id)}/files${q}`)) as BrowseAnswer;
  const width = Math.max(1, ...r.entries.map((e) => String(e.size).length));
  for (const e of r.entries) {
    const when = new Date(e.mtime * 1000).toISOString().replace('T', ' ').slice(0, 16);
    console.log(
      `${e.mode} ${String(e.nlink).padStart(2)} ${String(e.uid).padStart(5)} ${String(e.gid).padStart(5)} ${String(e.size).padStart(width)} ${when} ${e.path}${e.type === 'directory' ? '/' : ''}`,
    );
  }
  if (r.truncated) console.error(`(more entries than one answer holds: ${r.entries.length} shown)`);
}

export function register(program: Command): void {
  const task = program.command('task').description("a task's logs and sandbox files, relayed from its agent");
  connection(
    task
      .command('logs')
      .description("print a task's stdout (or --stderr); --follow keeps printing what it writes until it ends")
      .argument('<task-id>', 'the task id of GET /api/v1/tasks')
      .option('--stderr', 'its stderr instead of its stdout')
      .option('-f, --follow', 'keep reading what the task writes, until it has ended')
      .option('--tail <bytes>', 'start this many bytes before the end')
      .option('--interval <ms>', 'how often --follow reads (default 1000)'),
  ).action(run(async (id: string, opts: LogsFlags) => logs(id, opts)));
  connection(
    task
      .command('files')
      .description("list a directory of a task's sandbox (default: the sandbox itself)")
      .argument('<task-id>', 'the task id of GET /api/v1/tasks')
      .argument('[path]', 'a directory (or file) relative to the sandbox'),
  ).action(run(async (id: string, path: string | undefined, opts: Connection) => files(id, path, opts)));
  registerTaskKill(task);
}
