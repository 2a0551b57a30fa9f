/** A control plane's /agents namespace, enough for one agent: it registers it, takes its updates, and sends it launches. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AGENTS_NAMESPACE,
  type ExecutorExited,
  type FrameworkMessage,
  type LaunchTask,
  type RegisterAgent,
  type Reply,
  type StatusUpdate,
  type UpdateAgent,
} from '@arbiter/contracts';
import { Server, type Socket } from 'socket.io';

export class FakeControlPlane {
  readonly registrations: RegisterAgent[] = [];
  readonly statuses: StatusUpdate[] = [];
  /** What the agent said of its executors: their exits and their messages to their schedulers. */
  readonly executorExits: ExecutorExited[] = [];
  readonly executorMessages: FrameworkMessage[] = [];
  /** The totals the agent sent while it runs (its `update` messages). */
  readonly totals: UpdateAgent[] = [];
  /** Whether executorExited and executorMessage are answered (a control plane that does not know them leaves them unanswered). */
  answerExecutorCalls = true;
  private agent?: Socket;

  private constructor(
    private readonly io: Server,
    readonly url: string,
  ) {
    io.of(AGENTS_NAMESPACE).on('connection', (socket) => {
      socket.on('register', (msg: RegisterAgent, ack: (r: Reply<{ agentId: string; heartbeatIntervalSeconds: number }>) => void) => {
        this.registrations.push(msg);
        this.agent = socket;
        ack({ ok: true, agentId: 'agent-1', heartbeatIntervalSeconds: 60 });
      });
      socket.on('status', (update: StatusUpdate, ack: (r: Reply) => void) => {
        this.statuses.push(update);
        ack({ ok: true });
      });
      socket.on('update', (m: UpdateAgent, ack: (r: Reply) => void) => {
        this.totals.push(m);
        ack({ ok: true });
      });
      socket.on('executorExited', (m: ExecutorExited, ack: (r: Reply) => void) => {
        if (!this.answerExecutorCalls) return;
        this.executorExits.push(m);
        ack({ ok: true });
      });
      socket.on('executorMessage', (m: FrameworkMessage, ack: (r: Reply) => void) => {
        if (!this.answerExecutorCalls) return;
        this.executorMessages.push(m);
        ack({ ok: true });
      });
    });
  }

  static async start(): Promise<FakeControlPlane> {
    const http = createServer();
    const io = new Server(http);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return new FakeControlPlane(io, `http://127.0.0.1:${(http.address() as AddressInfo).port}`);
  }

  get registered(): boolean {
    return this.agent !== undefined;
  }

  launch(msg: LaunchTask): void {
    this.agent?.emit('launch', msg);
  }

  /** Sends the agent a call and resolves with its reply. */
  async call(
    event: 'kill' | 'shutdownExecutor' | 'frameworkMessage' | 'launchGroup' | 'filesBrowse' | 'filesRead',
    payload: unknown,
  ): Promise<Reply> {
    if (!this.agent) throw new Error('no agent registered');
    return (await this.agent.timeout(10_000).emitWithAck(event, payload)) as Reply;
  }

  states(taskId: string): string[] {
    return this.statuses.filter((u) => u.taskId === taskId).map((u) => u.state);
  }

  last(taskId: string): StatusUpdate | undefined {
    return this.statuses.filter((u) => u.taskId === taskId).at(-1);
  }

  async close(): Promise<void> {
    await this.io.close();
  }
}

/** A launch of `shell` as task `taskId` of framework `fw`. */
export const launchOf = (taskId: string, shell: string, frameworkId = 'fw'): LaunchTask => ({
  frameworkId,
  task: { taskId, name: 'task', command: { shell }, resources: [{ name: 'cpus', value: 0.1 }] },
});
