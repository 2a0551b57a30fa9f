/**
 * The default executor's side of nested containers: a task of a group that names an image runs
 * in a container of its own, which the executor asks the agent for on the agent API (`POST
 * /api/v1`, JSON, its own credential), as Mesos's default executor does:
 * LAUNCH_NESTED_CONTAINER under the executor's container, WAIT_NESTED_CONTAINER until it ends
 * (asked again while the agent is away, restarting), KILL_NESTED_CONTAINER to signal it.
 */
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import * as os from 'node:os';
import type { ExecutorTaskInfo } from '@arbiter/scheduler-sdk';

/** Where the agent API is and who the executor is there. */
export interface AgentApi {
  /** MESOS_AGENT_ENDPOINT (host:port). */
  endpoint: string;
  /** MESOS_EXECUTOR_AUTHENTICATION_TOKEN. */
  token: string;
  /** The executor's container id (SUBSCRIBED's `container_id`), the parent of its nested containers. */
  parent?: string;
}

/** How a nested container ended, as the executor reports it. */
export interface NestedExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  reason?: string;
  message?: string;
}

/** The agent's answer (status and body), or undefined when it could not be reached. */
type Answer = { status: number; body: string } | undefined;

/** Whether a task runs in a container of its own: its TaskInfo names an image. */
export function namesImage(info: ExecutorTaskInfo): boolean {
  const c = info.container as { mesos?: { image?: unknown }; docker?: { image?: unknown } } | undefined;
  return !!(c?.mesos?.image ?? c?.docker?.image);
}

export class NestedTask {
  /** Its container id under the executor's (Mesos's default executor takes a UUID too). */
  readonly id = crypto.randomUUID();

  constructor(
    private readonly agent: AgentApi,
    private readonly info: ExecutorTaskInfo,
  ) {}

  /** Resolves once its container runs; rejects with the agent's reason. */
  async launch(): Promise<void> {
    const { container, command } = this.info;
    const answer = await this.call('LAUNCH_NESTED_CONTAINER', { container, ...(command ? { command } : {}) });
    if (answer?.status !== 200)
      throw new Error(answer ? answer.body || `the agent answered ${answer.status}` : 'the agent could not be reached');
  }

  /** Resolves once its container has ended, asking again while the agent cannot be reached. */
  async wait(): Promise<NestedExit> {
    for (;;) {
      const answer = await this.call('WAIT_NESTED_CONTAINER', {});
      if (answer?.status === 200) return exitOf(answer.body);
      if (answer?.status === 404)
        return { code: null, signal: null, reason: 'REASON_AGENT_RESTARTED', message: 'its container was lost while the agent restarted' };
      if (answer) return { code: null, signal: null, reason: 'REASON_EXECUTOR_TERMINATED', message: answer.body };
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  /** Signals every process of its container (once launched; before, it never starts). */
  async kill(signal: NodeJS.Signals): Promise<void> {
    await this.call('KILL_NESTED_CONTAINER', { signal: os.constants.signals[signal] });
  }

  private call(type: string, args: Record<string, unknown>): Promise<Answer> {
    const body = JSON.stringify({
      type,
      [type.toLowerCase()]: { container_id: { value: this.id, parent: { value: this.agent.parent ?? '' } }, ...args },
    });
    const [host, port] = splitEndpoint(this.agent.endpoint);
    return new Promise((resolve) => {
      const req = http.request(
        {
          host,
          port,
          path: '/api/v1',
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.agent.token}` },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', () => resolve(undefined));
        },
      );
      req.on('error', () => resolve(undefined));
      req.end(body);
    });
  }
}

function splitEndpoint(endpoint: string): [string, number] {
  const at = endpoint.lastIndexOf(':');
  return [endpoint.slice(0, at).replace(/^\[|\]$/g, ''), Number(endpoint.slice(at + 1))];
}

/** WAIT_NESTED_CONTAINER's answer as an exit: its wait status (code << 8, or the signal), its reason. */
function exitOf(body: string): NestedExit {
  const answer = (JSON.parse(body) as { wait_nested_container?: { exit_status?: number; reason?: string; message?: string } })
    .wait_nested_container;
  const status = answer?.exit_status;
  const signalNumber = status !== undefined ? status & 0x7f : 0;
  const signal = signalNumber
    ? ((Object.entries(os.constants.signals).find(([, n]) => n === signalNumber)?.[0] as NodeJS.Signals | undefined) ?? 'SIGKILL')
    : null;
  const code = status !== undefined && !signalNumber ? status >> 8 : null;
  return { code, signal, ...(answer?.reason ? { reason: answer.reason, message: answer.message } : {}) };
}
