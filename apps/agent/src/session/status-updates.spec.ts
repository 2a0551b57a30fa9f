import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Reply, StatusUpdate } from '@arbiter/contracts';
import pino from 'pino';
import { UpdateJournal } from './journal';
import { StatusUpdates, type UpdateChannel } from './status-updates';

/** A control plane that answers each update when the test says so. */
class FakeChannel implements UpdateChannel {
  id: string | undefined = 'agent-1';
  open = true;
  readonly sent: Array<{ update: StatusUpdate; answer: (r: Reply) => void }> = [];
  ready = () => this.open;
  send = (update: StatusUpdate) => new Promise<Reply>((answer) => this.sent.push({ update, answer }));
}

/** Lets the awaited replies run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('status updates', () => {
  let dir: string;
  let channel: FakeChannel;
  let updates: StatusUpdates;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-updates-'));
    channel = new FakeChannel();
    updates = new StatusUpdates(new UpdateJournal(dir), channel, pino({ level: 'silent' }));
  });
  afterEach(() => {
    updates.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("sends each task's updates in order, one at a time, and different tasks' side by side", async () => {
    updates.record({ frameworkId: 'f', taskId: 'a', state: 'STARTING' });
    updates.record({ frameworkId: 'f', taskId: 'a', state: 'RUNNING' });
    updates.record({ frameworkId: 'f', taskId: 'b', state: 'STARTING' });
    expect(channel.sent.map((s) => `${s.update.taskId}:${s.update.state}`)).toEqual(['a:STARTING', 'b:STARTING']);
    expect(channel.sent[0].update.agentId).toBe('agent-1');
    channel.sent[0].answer({ ok: true });
    await settle();
    expect(channel.sent.map((s) => `${s.update.taskId}:${s.update.state}`)).toEqual(['a:STARTING', 'b:STARTING', 'a:RUNNING']);
    expect(updates.size).toBe(2);
    expect(updates.unacknowledged()).toEqual(new Set(['f/a', 'f/b']));
  });

  it('keeps updates while the channel is not ready, and sends them once it is', () => {
    channel.open = false;
    updates.record({ frameworkId: 'f', taskId: 'a', state: 'FINISHED', reason: 'REASON_COMMAND_EXITED', message: 'exited with status 0' });
    expect(channel.sent).toEqual([]);
    channel.open = true;
    updates.flush();
    expect(channel.sent[0].update).toMatchObject({ state: 'FINISHED', reason: 'REASON_COMMAND_EXITED', source: 'SOURCE_AGENT' });
  });

  it('sends a refused update again on a timer; drops one the control plane cannot read', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      updates.record({ frameworkId: 'f', taskId: 'a', state: 'RUNNING' });
      channel.sent[0].answer({ ok: false, error: { code: 'NOT_READY', message: 'later' } });
      await settle();
      expect(channel.sent).toHaveLength(1);
      jest.advanceTimersByTime(1_000);
      expect(channel.sent).toHaveLength(2);
      channel.sent[1].answer({ ok: false, error: { code: 'INVALID_MESSAGE', message: 'unreadable' } });
      await settle();
      expect(updates.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it("keeps an executor's data, health and labels in the journal: sent again after a refusal and after an agent restart", async () => {
    const fromExecutor = { data: Buffer.from('payload').toString('base64'), healthy: true, labels: [{ key: 'phase', value: 'warm' }] };
    updates.record({ frameworkId: 'f', taskId: 'a', state: 'RUNNING', updateUuid: '0b7c2f52-3c55-4d0e-9f55-0f9a1a0b6a11', fromExecutor });
    const carried = { updateUuid: '0b7c2f52-3c55-4d0e-9f55-0f9a1a0b6a11', state: 'RUNNING', source: 'SOURCE_EXECUTOR', ...fromExecutor };
    expect(channel.sent[0].update).toMatchObject(carried);
    channel.sent[0].answer({ ok: false, error: { code: 'NOT_READY', message: 'later' } });
    await settle();
    // The agent restarts: a new stream over the same journal sends it again, whole.
    updates.stop();
    const restarted = new StatusUpdates(new UpdateJournal(dir), channel, pino({ level: 'silent' }));
    try {
      restarted.flush();
      expect(channel.sent).toHaveLength(2);
      expect(channel.sent[1].update).toMatchObject(carried);
      expect(restarted.unacknowledgedUpdates()).toEqual([expect.objectContaining(carried)]);
    } finally {
      restarted.stop();
    }
  });

  it("carries the agent's own checks' health and check status as the agent's update", () => {
    const checks = { healthy: false, checkStatus: { type: 'HTTP' as const, statusCode: 503 } };
    updates.record({ frameworkId: 'f', taskId: 'b', state: 'RUNNING', reason: 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED', ...checks });
    expect(channel.sent[0].update).toMatchObject({
      state: 'RUNNING',
      source: 'SOURCE_AGENT',
      reason: 'REASON_TASK_HEALTH_CHECK_STATUS_UPDATED',
      ...checks,
    });
  });
});
