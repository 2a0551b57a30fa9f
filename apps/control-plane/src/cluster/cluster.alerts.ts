import type { AlertCode } from '@arbiter/contracts';
import { type AlertDto, AlertSeverity, type AlertTargetDto } from './cluster.dto';

/** Alerts about single agents or frameworks beyond this many are summed up in one. */
const ALERTS_PER_CODE = 20;

/** Collects alerts, most severe first; past ALERTS_PER_CODE of one code, a count stands for the rest. */
export class Alerts {
  private readonly items: AlertDto[] = [];
  private readonly overflow = new Map<AlertCode, { severity: AlertSeverity; kind: AlertTargetDto['kind']; n: number }>();

  add(severity: AlertSeverity, code: AlertCode, message: string, kind: AlertTargetDto['kind'], id: string | null): void {
    if (this.items.filter((a) => a.code === code).length < ALERTS_PER_CODE)
      this.items.push({ severity, code, message, target: { kind, id } });
    else {
      const o = this.overflow.get(code) ?? { severity, kind, n: 0 };
      o.n++;
      this.overflow.set(code, o);
    }
  }

  list(): AlertDto[] {
    const rank = { [AlertSeverity.CRITICAL]: 0, [AlertSeverity.WARNING]: 1, [AlertSeverity.INFO]: 2 };
    const more = [...this.overflow].map(([code, o]) => ({
      severity: o.severity,
      code,
      message: `… and ${o.n} more ${code} alert${o.n === 1 ? '' : 's'}.`,
      target: { kind: 'cluster' as const, id: null },
    }));
    return [...this.items, ...more].sort((a, b) => rank[a.severity] - rank[b.severity]);
  }
}
