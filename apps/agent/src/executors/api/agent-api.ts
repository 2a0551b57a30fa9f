/**
 * The calls of Mesos's agent API (`POST /api/v1` on the agent, JSON) an executor may make on its
 * own credential: its nested containers' LAUNCH_NESTED_CONTAINER, WAIT_NESTED_CONTAINER and
 * KILL_NESTED_CONTAINER (and their newer names LAUNCH_CONTAINER, WAIT_CONTAINER, KILL_CONTAINER).
 * The credential acts only on containers directly under its own executor's (`container_id.parent`
 * the container id SUBSCRIBED told it): another's is 403, as Mesos's authorization of an
 * executor's calls. Answers: LAUNCH 200 once the container runs, WAIT 200 with its end once it
 * has ended, KILL 200; an unknown container 404.
 */
import * as os from 'node:os';
import { type Command, containerOf, MesosCommandInfo, MesosContainerInfo } from '@arbiter/contracts';
import { z } from 'zod';
import type { ExecutorRun } from '../executor-run';
import { type NestedContainers, NestedError } from '../nested-containers';
import { WireError } from './wire';

export const AGENT_API_PATH = '/api/v1';

const ContainerId = z
  .object({
    value: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'a container id is 1 to 128 letters, digits, `.`, `_` or `-`'),
    parent: z
      .object({ value: z.string().max(255), parent: z.unknown().optional() })
      .strict()
      .optional(),
  })
  .strict();
const Launch = z
  .object({ container_id: ContainerId, command: MesosCommandInfo.optional(), container: MesosContainerInfo.optional() })
  .strict();
const Wait = z.object({ container_id: ContainerId }).strict();
const Kill = z.object({ container_id: ContainerId, signal: z.number().int().min(1).max(64).optional() }).strict();
/** Each call's field (Mesos's JSON names). */
const FIELDS = {
  LAUNCH_NESTED_CONTAINER: 'launch_nested_container',
  LAUNCH_CONTAINER: 'launch_container',
  WAIT_NESTED_CONTAINER: 'wait_nested_container',
  WAIT_CONTAINER: 'wait_container',
  KILL_NESTED_CONTAINER: 'kill_nested_container',
  KILL_CONTAINER: 'kill_container',
} as const;
const Call = z
  .object({
    type: z.enum(Object.keys(FIELDS) as Array<keyof typeof FIELDS>),
    launch_nested_container: Launch.optional(),
    launch_container: Launch.optional(),
    wait_nested_container: Wait.optional(),
    wait_container: Wait.optional(),
    kill_nested_container: Kill.optional(),
    kill_container: Kill.optional(),
  })
  .strict();
type Call = z.infer<typeof Call>;

const errors = {
  unsupported: (what: string, why: string) => new WireError(400, `${what} is not supported: ${why}`),
  invalid: (message: string) => new WireError(400, message),
};

/** Takes one call of `run`'s executor; resolves with the answer's body (none: an empty 200). */
export async function agentCall(nested: NestedContainers, run: ExecutorRun, body: Buffer): Promise<Record<string, unknown> | undefined> {
  const call = parse(body);
  const field = FIELDS[call.type];
  const args = call[field];
  if (!args) throw new WireError(400, `Failed to validate agent::Call: Expecting '${field}' to be present`);
  const id = args.container_id;
  if (id.parent?.value !== run.containerId)
    throw new WireError(
      403,
      `this credential acts only on containers directly under executor '${run.spec.executorId}' (parent ${run.containerId})`,
    );
  try {
    if ('command' in args || call.type.startsWith('LAUNCH')) {
      const launch = args as z.infer<typeof Launch>;
      if (!launch.container) throw new WireError(400, 'a nested container names its container (an image in mesos.image)');
      const container = containerOf(launch.container, `container ${id.value}`, errors);
      await nested.launch(run, { id: id.value, container, ...commandOf(launch.command) });
      return undefined;
    }
    if (call.type.startsWith('WAIT')) {
      const end = await nested.wait(run, id.value);
      const answer = {
        ...(end.exitStatus !== undefined ? { exit_status: end.exitStatus } : {}),
        ...(end.reason ? { reason: end.reason } : {}),
        message: end.message,
      };
      return { type: call.type, [field]: answer };
    }
    const signal = (args as z.infer<typeof Kill>).signal ?? 9;
    const name = Object.entries(os.constants.signals).find(([, n]) => n === signal)?.[0] as NodeJS.Signals | undefined;
    if (!name) throw new WireError(400, `no signal ${signal}`);
    await nested.kill(run, id.value, name);
    return undefined;
  } catch (e) {
    if (e instanceof NestedError) throw new WireError(e.status, e.message);
    throw e;
  }
}

function parse(body: Buffer): Call {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WireError(400, 'Failed to parse body into Call: not JSON');
  }
  const parsed = Call.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WireError(400, `Failed to validate agent::Call: ${issue.path.join('.') || 'type'}: ${issue.message}`);
  }
  return parsed.data;
}

/** A nested container's CommandInfo (none: its image's entrypoint and cmd). */
function commandOf(c: MesosCommandInfo | undefined): { command?: Command; env?: Record<string, string> } {
  if (!c) return {};
  if (c.uris?.length) throw new WireError(400, "a nested container's command.uris is not supported: fetch into its executor's sandbox");
  const env = Object.fromEntries((c.environment?.variables ?? []).map((v) => [v.name, v.value ?? '']));
  const envPart = Object.keys(env).length ? { env } : {};
  if (c.value === undefined) return envPart;
  if (c.shell === false)
    return {
      command: { value: c.value, ...(c.arguments && c.arguments.length > 1 ? { arguments: c.arguments.slice(1) } : {}) },
      ...envPart,
    };
  return { command: { shell: c.value }, ...envPart };
}
