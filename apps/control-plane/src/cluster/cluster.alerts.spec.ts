import { Alerts } from './cluster.alerts';
import { AlertSeverity } from './cluster.dto';

describe('Alerts', () => {
  it('lists the most severe first, keeping the order of addition within a severity', () => {
    const alerts = new Alerts();
    alerts.add(AlertSeverity.INFO, 'AGENT_DEACTIVATED', 'i1', 'agent', 'a1');
    alerts.add(AlertSeverity.WARNING, 'AGENT_DRAINING', 'w1', 'agent', 'a2');
    alerts.add(AlertSeverity.CRITICAL, 'NO_AGENTS', 'c1', 'cluster', null);
    alerts.add(AlertSeverity.WARNING, 'FRAMEWORK_DISCONNECTED', 'w2', 'framework', 'f1');
    expect(alerts.list().map((a) => a.message)).toEqual(['c1', 'w1', 'w2', 'i1']);
    expect(alerts.list()[0]).toEqual({ severity: 'critical', code: 'NO_AGENTS', message: 'c1', target: { kind: 'cluster', id: null } });
  });

  it('keeps twenty alerts of one code and sums up the rest in one, at their severity', () => {
    const alerts = new Alerts();
    for (let i = 0; i < 23; i++) alerts.add(AlertSeverity.CRITICAL, 'AGENT_UNREACHABLE', `lost ${i}`, 'agent', `a${i}`);
    for (let i = 0; i < 21; i++) alerts.add(AlertSeverity.INFO, 'AGENT_DEACTIVATED', `off ${i}`, 'agent', `b${i}`);
    const list = alerts.list();
    const unreachable = list.filter((a) => a.code === 'AGENT_UNREACHABLE');
    // 20 kept + 1 summing up the other 3.
    expect(unreachable).toHaveLength(21);
    expect(unreachable.slice(0, 20).map((a) => a.target.id)).toEqual(Array.from({ length: 20 }, (_, i) => `a${i}`));
    expect(unreachable[20]).toEqual({
      severity: 'critical',
      code: 'AGENT_UNREACHABLE',
      message: '… and 3 more AGENT_UNREACHABLE alerts.',
      target: { kind: 'cluster', id: null },
    });
    // One over: "alert", not "alerts"; the summary sorts with the info alerts, last.
    expect(list.at(-1)?.message).toBe('… and 1 more AGENT_DEACTIVATED alert.');
    expect(list).toHaveLength(21 + 21);
  });

  it('lists nothing when nothing was added', () => {
    expect(new Alerts().list()).toEqual([]);
  });
});
