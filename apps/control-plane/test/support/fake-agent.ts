/**
 * An agent speaking the /agents protocol from inside a test, for master-level tests that need
 * no processes: it registers, heartbeats, and answers launches and kills with status updates
 * as the agent would. (End-to-end tests run the real agent.)
 */
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import type {
  CreateVolume,
  DestroyVolume,
  ExecutorExited,
  FilesBrowse,
  FilesRead,
  FrameworkMessage,
  KillTask,
  LaunchGroup,
  LaunchTask,
  RegisterAgent,
  Reply,
  RunningExecutorReport,
  ShutdownExecutor,
  StatusUpdate,
  TaskState,
} from '@arbiter/contracts';

export class ProtocolAgent {
  readonly socket: Socket;
  agentId?: string;
  /** Every launch it was sent, in order. */
  readonly launches: LaunchTask[] = [];
  /** Every kill it was sent, in order. */
  readonly kills: KillTask[] = [];
  readonly tasks = new Map<string, { frameworkId: string; taskId: string; state: TaskState; resources: LaunchTask['task']['resources'] }>();
  /** Task groups it was sent, executors it was told to shut down, messages for its executors. */
  readonly launchGroups: LaunchGroup[] = [];
  readonly shutdowns: ShutdownExecutor[] = [];
  readonly frameworkMessages: FrameworkMessage[] = [];
  /** The executors it runs (started by the first task naming them), reported when it registers. */
  readonly executors = new Map<string, RunningExecutorReport>();
  private heartbeat?: NodeJS.Timeout;
  /** When false, launched tasks stay RUNNING until killed. */
  finishImmediately = false;
  /** When false, launches are recorded but not run: their tasks stay STAGING, as if the launch was lost. */
  runsLaunches = true;
  /** Sandbox files by task id (path relative to the sandbox -> content), answered to 'filesBrowse' and 'filesRead'. */
  readonly sandboxes = new Map<string, Map<string, string>>();
  /** Every sandbox files request it was sent, in order. */
  readonly filesRequests: Array<FilesBrowse | FilesRead> = [];
  /** Its volumes ('role/id'); those in `volumesInUse` refuse 'destroyVolume' with VOLUME_IN_USE, as the agent does. */
  readonly volumes = new Set<string>();
  readonly volumesInUse = new Set<string>();

  constructor(
    url: string,
    token: string,
    private readonly info: Omit<RegisterAgent, 'tasks' | 'executors'>,
    extra: { executors?: RunningExecutorReport[] } = {},
  ) {
    for (const e of extra.executors ?? []) this.executors.set(`${e.frameworkId}/${e.executorId}`, e);
    this.socket = io(`${url}/agents`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
    this.socket.on('launch', (m: LaunchTask, ack?: (r: { ok: true }) => void) => {
      ack?.({ ok: true });
      this.launches.push(m);
      if (this.runsLaunches) this.run(m.frameworkId, m.task);
    });
    this.socket.on('launchGroup', (m: LaunchGroup, ack?: (r: { ok: true }) => void) => {
      ack?.({ ok: true });
      this.launchGroups.push(m);
      if (this.runsLaunches) for (const t of m.tasks) this.run(m.frameworkId, { ...t, executor: m.executor });
    });
    this.socket.on('shutdownExecutor', (m: ShutdownExecutor, ack?: (r: { ok: true }) => void) => {
      ack?.({ ok: true });
      this.shutdowns.push(m);
    });
    this.socket.on('frameworkMessage', (m: FrameworkMessage, ack?: (r: { ok: true }) => void) => {
      ack?.({ ok: true });
      this.frameworkMessages.push(m);
    });
    this.socket.on('createVolume', (m: CreateVolume, ack: (r: unknown) => void) => {
      this.volumes.add(`${m.role}/${m.id}`);
      ack({ ok: true, path: `/volumes/roles/${m.role}/${m.id}` });
    });
    this.socket.on('destroyVolume', (m: DestroyVolume, ack: (r: unknown) => void) => {
      const key = `${m.role}/${m.id}`;
      if (this.volumesInUse.has(key)) {
        ack({ ok: false, error: { code: 'VOLUME_IN_USE', message: `volume ${key} is in use` } });
        return;
      }
      this.volumes.delete(key);
      ack({ ok: true });
    });
    this.socket.on('kill', (m: KillTask, ack?: (r: { ok: true }) => void) => {
      ack?.({ ok: true });
      this.kills.push(m);
      if (this.tasks.has(m.taskId)) this.status(m.frameworkId, m.taskId, 'KILLED', 'REASON_TASK_KILLED').catch(() => undefined);
    });
    this.answerFiles();
  }

  /** As the agent answers (apps/agent/src/files): '..' refused, missing files not found, reads by offset and length. */
  private answerFiles(): void {
    const refuse = (code: string, message: string) => ({ ok: false, error: { code, message } });
    const sandboxOf = (m: FilesBrowse | FilesRead, path: string) => {
      this.filesRequests.push(m);
      if (path.split('/').includes('..')) return refuse('SANDBOX_PATH_INVALID', `'${path}': a sandbox path may not name '..'`);
      const files = this.sandboxes.get(m.taskId);
      return files ?? refuse('SANDBOX_FILE_NOT_FOUND', `task ${m.taskId} has no sandbox on this agent`);
    };
    this.socket.on('filesBrowse', (m: FilesBrowse, ack: (r: unknown) => void) => {
      const files = sandboxOf(m, m.path ?? '');
      if (!(files instanceof Map)) {
        ack(files);
        return;
      }
      const entries = [...files].map(([path, content]) => ({
        path,
        type: 'file',
        size: Buffer.byteLength(content),
        mtime: 0,
        mode: '-rw-r--r--',
        nlink: 1,
        uid: 0,
        gid: 0,
      }));
      ack({ ok: true, entries, truncated: false });
    });
    this.socket.on('filesRead', (m: FilesRead, ack: (r: unknown) => void) => {
      const files = sandboxOf(m, m.path);
      if (!(files instanceof Map)) {
        ack(files);
        return;
      }
      const content = files.get(m.path.replace(/^\/+/, ''));
      if (content === undefined) {
        ack(refuse('SANDBOX_FILE_NOT_FOUND', `no file '${m.path}' in the sandbox`));
        return;
      }
      const bytes = Buffer.from(content);
      const offset = m.offset ?? 0;
      if (offset < 0) {
        ack({ ok: true, data: '', offset: bytes.length, size: bytes.length });
        return;
      }
      const data = bytes.subarray(offset, offset + (m.length ?? 1024 * 1024)).toString('base64');
      ack({ ok: true, data, offset, size: bytes.length });
    });
  }

  private run(frameworkId: string, task: LaunchTask['task']): void {
    const e = task.executor;
    if (e && !this.executors.has(`${frameworkId}/${e.executorId}`))
      this.executors.set(`${frameworkId}/${e.executorId}`, { frameworkId, executorId: e.executorId, resources: e.resources });
    this.tasks.set(task.taskId, { frameworkId, taskId: task.taskId, state: 'STARTING', resources: task.resources });
    this.status(frameworkId, task.taskId, 'STARTING')
      .then(() => this.status(frameworkId, task.taskId, 'RUNNING'))
      .then(() => (this.finishImmediately ? this.status(frameworkId, task.taskId, 'FINISHED') : undefined))
      .catch(() => undefined);
  }

  /** Reports one of its executors ended (it stops reporting it). */
  executorExited(m: ExecutorExited): Promise<Reply> {
    this.executors.delete(`${m.frameworkId}/${m.executorId}`);
    return this.socket.emitWithAck('executorExited', m) as Promise<Reply>;
  }

  /** Hands an executor's message to the control plane. */
  executorMessage(m: FrameworkMessage): Promise<Reply> {
    return this.socket.emitWithAck('executorMessage', m) as Promise<Reply>;
  }

  async register(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('connect_error', reject);
    });
    const tasks = [...this.tasks.values()].filter((t) => !['FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR'].includes(t.state));
    const reply = (await this.socket.emitWithAck('register', {
      ...this.info,
      agentId: this.agentId ?? this.info.agentId,
      tasks,
      executors: [...this.executors.values()],
    })) as Reply<{
      agentId: string;
      heartbeatIntervalSeconds: number;
    }>;
    if (!reply.ok) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    this.agentId = reply.agentId;
    // As often as the control plane asks, as an agent does (at least once a second: tests on a
    // manual clock move it faster than the heartbeats' real time).
    this.heartbeatIntervalSeconds = reply.heartbeatIntervalSeconds;
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(
      () => this.socket.emit('heartbeat', {}, () => undefined),
      Math.min(1, reply.heartbeatIntervalSeconds) * 1000,
    );
    return reply.agentId;
  }

  /** The heartbeat interval the last registration was given. */
  heartbeatIntervalSeconds?: number;

  /** One heartbeat, once the control plane has taken it. */
  async beat(): Promise<void> {
    await this.socket.emitWithAck('heartbeat', {});
  }

  async status(
    frameworkId: string,
    taskId: string,
    state: TaskState,
    reason?: string,
    extra: Partial<Pick<StatusUpdate, 'source' | 'data' | 'healthy' | 'checkStatus' | 'labels' | 'container'>> = {},
  ): Promise<StatusUpdate> {
    const task = this.tasks.get(taskId);
    if (task) task.state = state;
    const update: StatusUpdate = {
      updateUuid: randomUUID(),
      frameworkId,
      taskId,
      agentId: this.agentId ?? '',
      state,
      ...(reason ? { reason } : {}),
      timestamp: new Date().toISOString(),
      source: 'SOURCE_AGENT',
      ...extra,
    };
    const reply = (await this.socket.emitWithAck('status', update)) as Reply;
    if (!reply.ok) throw new Error(reply.error.message);
    return update;
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.socket.disconnect();
  }
}
