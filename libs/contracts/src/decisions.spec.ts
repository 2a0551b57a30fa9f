import { DECISION_REASONS, DECISION_SENTENCES, explainDecision, formatQuantities } from './decisions';
import { isTerminalTaskState, TASK_STATES, TERMINAL_TASK_STATES } from './task-states';

describe('decision reasons', () => {
  it('has a sentence for every reason, naming the count and the numbers of the example', () => {
    for (const reason of DECISION_REASONS) expect(DECISION_SENTENCES[reason](3, {})).toMatch(/^3 /);
    expect(explainDecision('ROLE_AT_QUOTA_LIMIT', 2, { role: 'eng', limit: { cpus: 4 }, consumed: { cpus: 4.0004 } })).toBe(
      "2 offer(s) were cut because role 'eng' is at its quota limit (limit cpus 4; consumed cpus 4).",
    );
  });

  it('tells a missing capability for GPUs from one for refined reservations', () => {
    expect(explainDecision('MISSING_CAPABILITY', 1, { capability: 'GPU_RESOURCES' })).toBe(
      '1 time(s) an agent was skipped because it has GPUs and the framework lacks the GPU_RESOURCES capability.',
    );
    expect(explainDecision('MISSING_CAPABILITY', 2, { capability: 'RESERVATION_REFINEMENT' })).toBe(
      '2 time(s) an agent was skipped because all it had for the role was refined reservations and the framework lacks the RESERVATION_REFINEMENT capability.',
    );
  });

  it('names a reason it does not know as it is', () => {
    expect(explainDecision('SOMETHING_NEW', 1)).toBe('1 time(s): SOMETHING_NEW.');
    expect(formatQuantities({})).toBe('nothing');
  });
});

describe('task states', () => {
  it('knows which states are terminal', () => {
    expect(TASK_STATES.filter(isTerminalTaskState)).toEqual([...TERMINAL_TASK_STATES]);
    expect(isTerminalTaskState('RUNNING')).toBe(false);
    expect(isTerminalTaskState('bogus')).toBe(false);
  });
});
