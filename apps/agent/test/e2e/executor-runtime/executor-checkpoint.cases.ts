/**
 * The framework's checkpoint flag (Mesos's FrameworkInfo.checkpoint), as the launch carries it,
 * with real executor processes: MESOS_CHECKPOINT says it, and across an agent restart an executor
 * of a framework that checkpoints stays while one of a framework that does not is killed, its
 * tasks lost (TASK_LOST, REASON_AGENT_RESTARTED), as Mesos does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutorSpec, LaunchTask } from '@arbiter/contracts';
import { until as untilWithin } from '@arbiter/test-support';
import { processStartTicks } from '../../../src/containerizer/launcher';
import { executorBed } from '../../support/executor-bed';

const until = (check: () => boolean, what = 'the executor condition') => untilWithin(check, 20_000, what);

/** An executor that writes its environment to its sandbox and sleeps (it never subscribes: the registration timeout is long). */
const sleeper = (executorId: string): ExecutorSpec => ({
  executorId,
  type: 'CUSTOM',
  command: { shell: 'env > "$MESOS_SANDBOX/env.tmp" && mv "$MESOS_SANDBOX/env.tmp" "$MESOS_SANDBOX/env"; exec sleep 600' },
  resources: [
    { name: 'cpus', value: 0.1 },
    { name: 'mem', value: 32 },
  ],
});
const launch = (frameworkId: string, taskId: string, checkpoint?: boolean): LaunchTask => ({
  frameworkId,
  task: { taskId, name: taskId, executor: sleeper('ex'), resources: [{ name: 'cpus', value: 0.1 }] },
  ...(checkpoint !== undefined ? { checkpoint } : {}),
});

describe("executors and their framework's checkpoint flag (real processes)", () => {
  const bed = executorBed('arbiter-checkpoint-', { executors: { registrationTimeoutMs: 60_000 } });

  it('MESOS_CHECKPOINT follows the flag; an agent restart keeps the executors of frameworks that checkpoint and kills the others', async () => {
    const cp = bed.cp;
    const first = await bed.agentOn();
    cp.launch(launch('keeps', 'k1', true));
    cp.launch(launch('forgets', 'f1', false));
    // Absent (an older control plane): checkpointing, as before.
    cp.launch(launch('older', 'o1'));
    const envOf = (fw: string) => {
      const file = path.join(first.executors.find(fw, 'ex')?.container.sandbox ?? '', 'env');
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    };
    await until(() => ['keeps', 'forgets', 'older'].every((fw) => envOf(fw) !== ''), 'the executors started');
    expect(['keeps', 'forgets', 'older'].map((fw) => /^MESOS_CHECKPOINT=(.*)$/m.exec(envOf(fw))?.[1])).toEqual(['1', '0', '1']);
    const pidOf = (fw: string) => first.executors.find(fw, 'ex')?.container.pid ?? 0;
    const pids = { keeps: pidOf('keeps'), forgets: pidOf('forgets'), older: pidOf('older') };
    const ticks = { keeps: processStartTicks(pids.keeps), forgets: processStartTicks(pids.forgets) };
    await first.stop();
    bed.forget(first);
    // The agent's stop leaves every executor running.
    expect([processStartTicks(pids.keeps), processStartTicks(pids.forgets)]).toEqual([ticks.keeps, ticks.forgets]);

    const second = await bed.agentOn({ executors: { registrationTimeoutMs: 60_000, recoveryTimeoutMs: 60_000 } });
    await until(() => cp.last('f1')?.state === 'LOST', 'the task of the framework that does not checkpoint lost');
    expect(cp.last('f1')).toMatchObject({
      reason: 'REASON_AGENT_RESTARTED',
      message: 'the agent restarted and its framework does not checkpoint (FrameworkInfo.checkpoint)',
    });
    await until(() => processStartTicks(pids.forgets) === undefined, 'its executor killed');
    await until(() => cp.executorExits.some((e) => e.frameworkId === 'forgets'), 'its end reported');
    expect(cp.executorExits.find((e) => e.frameworkId === 'forgets')).toMatchObject({ executorId: 'ex', reason: 'REASON_AGENT_RESTARTED' });
    // The others wait for their executors to subscribe again.
    expect(processStartTicks(pids.keeps)).toBe(ticks.keeps);
    expect(second.executors.find('keeps', 'ex')?.state).toBe('REGISTERING');
    expect(second.executors.find('older', 'ex')?.state).toBe('REGISTERING');
    expect(second.executors.find('forgets', 'ex')).toBeUndefined();
    expect(cp.statuses.filter((s) => s.taskId === 'k1' || s.taskId === 'o1')).toEqual([]);
  }, 60_000);
});
