import type { ExecutorRun } from '../executor-run';
import { type NestedContainers, NestedError, type NestedLaunch } from '../nested-containers';
import { agentCall } from './agent-api';
import { WireError } from './wire';

/** An executor's run as the API sees it (its ids and its container id). */
const run = { containerId: 'c-mine', spec: { executorId: 'ex' }, frameworkId: 'fw' } as unknown as ExecutorRun;

function fakeNested() {
  const launched: NestedLaunch[] = [];
  const killed: Array<[string, string]> = [];
  const nested = {
    launch: (_run: ExecutorRun, l: NestedLaunch) => {
      launched.push(l);
      return Promise.resolve();
    },
    wait: (_run: ExecutorRun, id: string) =>
      id === 'known'
        ? Promise.resolve({ exitStatus: 3 << 8, message: 'the command exited with status 3' })
        : Promise.reject(new NestedError(404, 'no container')),
    kill: (_run: ExecutorRun, id: string, signal: string) => {
      if (id !== 'known') return Promise.reject(new NestedError(404, 'no container'));
      killed.push([id, signal]);
      return Promise.resolve();
    },
  } as unknown as NestedContainers;
  return { nested, launched, killed };
}

const body = (type: string, args: Record<string, unknown>, parent = 'c-mine', id = 'known') =>
  Buffer.from(JSON.stringify({ type, [type.toLowerCase()]: { container_id: { value: id, parent: { value: parent } }, ...args } }));

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    return e instanceof WireError ? e.status : 500;
  }
}

const IMAGE = { type: 'MESOS', mesos: { image: { type: 'DOCKER', docker: { name: 'busybox' } } } };

describe("the agent API's nested container calls", () => {
  it('launches a nested container in Arbiter terms: its image, its command, its environment and shared PID namespace', async () => {
    const { nested, launched } = fakeNested();
    const command = { value: 'echo hi', environment: { variables: [{ name: 'A', value: '1' }] } };
    const container = { ...IMAGE, linux_info: { share_pid_namespace: true } };
    expect(await agentCall(nested, run, body('LAUNCH_NESTED_CONTAINER', { command, container }))).toBeUndefined();
    expect(launched).toEqual([
      {
        id: 'known',
        container: { type: 'MESOS', image: { name: 'busybox' }, linux: { sharePidNamespace: true } },
        command: { shell: 'echo hi' },
        env: { A: '1' },
      },
    ]);
  });

  it("answers a wait with the container's wait status and kills with the signal named (default SIGKILL)", async () => {
    const { nested, killed } = fakeNested();
    expect(await agentCall(nested, run, body('WAIT_NESTED_CONTAINER', {}))).toEqual({
      type: 'WAIT_NESTED_CONTAINER',
      wait_nested_container: { exit_status: 768, message: 'the command exited with status 3' },
    });
    await agentCall(nested, run, body('KILL_NESTED_CONTAINER', { signal: 15 }));
    await agentCall(nested, run, body('KILL_CONTAINER', {}));
    expect(killed).toEqual([
      ['known', 'SIGTERM'],
      ['known', 'SIGKILL'],
    ]);
  });

  it("refuses another executor's containers (403), unknown ones (404) and malformed calls (400), launching nothing", async () => {
    const { nested, launched, killed } = fakeNested();
    for (const type of ['LAUNCH_NESTED_CONTAINER', 'WAIT_NESTED_CONTAINER', 'KILL_NESTED_CONTAINER'])
      expect(await status(agentCall(nested, run, body(type, type.startsWith('LAUNCH') ? { container: IMAGE } : {}, 'c-other')))).toBe(403);
    expect(await status(agentCall(nested, run, body('KILL_NESTED_CONTAINER', {}, 'c-mine', 'unknown')))).toBe(404);
    const bad = [
      Buffer.from('not json'),
      Buffer.from(JSON.stringify({ type: 'GET_STATE' })),
      Buffer.from(JSON.stringify({ type: 'LAUNCH_NESTED_CONTAINER' })),
      body('LAUNCH_NESTED_CONTAINER', { container: IMAGE }, 'c-mine', '../escape'),
      body('LAUNCH_NESTED_CONTAINER', {}),
      body('LAUNCH_NESTED_CONTAINER', { container: { ...IMAGE, linux_info: { capability_info: {}, seccomp: { x: 1 } } } }),
      body('KILL_NESTED_CONTAINER', { signal: 99 }),
    ];
    for (const b of bad) expect(await status(agentCall(nested, run, b))).toBe(400);
    expect([launched, killed]).toEqual([[], []]);
  });
});
