import type { StatusUpdate } from '@arbiter/contracts';
import { newerThanSent } from './resend-order';

const update = (taskId: string, state: StatusUpdate['state'], uuid: string): StatusUpdate => ({
  updateUuid: uuid,
  frameworkId: 'fw',
  taskId,
  agentId: 'agent',
  state,
  timestamp: '2026-11-27T00:00:00.000Z',
  source: 'SOURCE_AGENT',
});

describe('newerThanSent', () => {
  const running = update('a', 'RUNNING', 'u1');
  const finished = update('a', 'FINISHED', 'u2');
  const other = update('b', 'RUNNING', 'u3');

  it('leaves out held updates older than the one sent again of their task, keeps the newer ones', () => {
    // u1 was the task's latest when read and went out again; u2 came after it.
    expect(newerThanSent([running, finished, other], new Set(['u1']))).toEqual([finished, other]);
    // u2 was the latest when read: u1, held before it, is older and stays out.
    expect(newerThanSent([running, finished, other], new Set(['u2']))).toEqual([other]);
  });

  it('keeps every held update of a task with nothing sent again, or whose sent update was recorded before the hold', () => {
    expect(newerThanSent([running, finished], new Set())).toEqual([running, finished]);
    expect(newerThanSent([running, finished], new Set(['before-the-hold']))).toEqual([running, finished]);
  });
});
