/**
 * Maintenance primitives, as in Mesos: a schedule of windows, each with machines and an
 * unavailability (start, duration). Scheduled machines are DRAINING (frameworks with tasks
 * there get inverse offers); `start` takes machines DOWN (no offers), `stop` brings them back
 * UP and out of the schedule. Machines are matched to agents by hostname.
 */
import { AclsService } from '../acls/acls.service';
import type { AuditAction } from '@arbiter/contracts';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../auth/auth.actor';
import { AuditService } from '../audit/audit.service';
import { Database, lockDomain, LockDomain, type Tx } from '../database/database.service';
import { ArbiterException } from '../errors/errors.exception';
import { ClusterEvents } from '../leadership/cluster-events';
import { MachineMode, type MaintenanceMachineEntity } from './maintenance-machine.entity';
import type { MachineDto, MaintenanceStatusDto, ScheduleDto } from './maintenance.dto';
import { MaintenanceErrorCode } from './maintenance.errors';
import { MaintenanceRepository } from './maintenance.repository';
import { type MachineId, machineId, machineKey, showMachine } from './maintenance.rules';

@Injectable()
export class MaintenanceService {
  constructor(
    private readonly db: Database,
    private readonly repo: MaintenanceRepository,
    private readonly audit: AuditService,
    private readonly events: ClusterEvents,
    private readonly acls: AclsService,
  ) {}

  async schedule(tx: Tx = this.db.manager): Promise<ScheduleDto> {
    const [windows, machines] = await Promise.all([this.repo.windows(tx), this.repo.machines(tx)]);
    return {
      windows: windows.map((w) => ({
        machines: machines.filter((m) => m.windowId === w.id).map((m) => ({ hostname: m.hostname, ip: m.ip })),
        unavailability: { start: w.startAt.toISOString(), durationSeconds: w.durationSeconds },
      })),
    };
  }

  async replaceSchedule(input: ScheduleDto, actor: Actor): Promise<ScheduleDto> {
    const named = input.windows.flatMap((w) => w.machines.map((m) => m.hostname ?? m.ip ?? ''));
    await this.acls.authorize(actor, 'update_maintenance_schedule', named, 'update the maintenance schedule');
    const seen = new Map<string, number>();
    const windows = input.windows.map((w, i) => ({
      start: new Date(w.unavailability.start),
      durationSeconds: w.unavailability.durationSeconds ?? null,
      machines: w.machines.map((m, j) => {
        const id = machineId(m, `windows.${i}.machines.${j}`);
        const earlier = seen.get(machineKey(id));
        if (earlier !== undefined) {
          throw new ArbiterException(
            MaintenanceErrorCode.MAINTENANCE_DUPLICATE_MACHINE,
            `machine ${showMachine(id)} appears in window ${earlier}${earlier === i ? ' twice' : ` and in window ${i}`}; a machine may be in one window only`,
            { machine: id, windows: [earlier, i] },
          );
        }
        seen.set(machineKey(id), i);
        return id;
      }),
    }));
    const after = await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.MAINTENANCE);
      const before = await this.schedule(tx);
      const existing = new Map((await this.repo.machines(tx)).map((m) => [machineKey(m), m]));
      for (const m of existing.values()) {
        if (m.mode === MachineMode.DOWN && !seen.has(machineKey(m))) {
          throw new ArbiterException(
            MaintenanceErrorCode.MAINTENANCE_DOWN_MACHINE_REMOVED,
            `machine ${showMachine(m)} is DOWN; stop its maintenance before removing it from the schedule`,
            { machine: { hostname: m.hostname, ip: m.ip } },
          );
        }
      }
      await this.repo.clearSchedule(tx);
      for (const [position, w] of windows.entries()) {
        const windowId = await this.repo.insertWindow(tx, { position, startAt: w.start, durationSeconds: w.durationSeconds });
        for (const m of w.machines) {
          const prev = existing.get(machineKey(m));
          await this.repo.insertMachine(tx, {
            hostname: m.hostname,
            ip: m.ip,
            windowId,
            mode: prev?.mode ?? MachineMode.DRAINING,
            downSince: prev?.downSince ?? null,
          });
        }
      }
      // Answers to inverse offers concern machines still scheduled only.
      for (const m of existing.values()) if (!seen.has(machineKey(m))) await this.repo.forgetAnswers(tx, m);
      const after = await this.schedule(tx);
      await this.audit.record(tx, actor, {
        action: 'maintenance.schedule.update',
        targetType: 'maintenance',
        targetId: null,
        before,
        after,
      });
      return after;
    });
    this.events.emit({ type: 'maintenance.updated' });
    return after;
  }

  async start(machines: MachineDto[], actor: Actor): Promise<MaintenanceStatusDto> {
    await this.acls.authorize(
      actor,
      'start_maintenance',
      machines.map((m) => m.hostname ?? m.ip ?? ''),
      'start maintenance',
    );
    return this.setMode(machines, actor, 'maintenance.start', (m, id) => {
      if (!m)
        throw new ArbiterException(
          MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_SCHEDULED,
          `machine ${showMachine(id)} is not in the maintenance schedule; schedule it first`,
          { machine: id },
        );
      if (m.mode === MachineMode.DOWN)
        throw new ArbiterException(MaintenanceErrorCode.MAINTENANCE_MACHINE_ALREADY_DOWN, `machine ${showMachine(id)} is already DOWN`, {
          machine: id,
        });
      return 'down';
    });
  }

  async stop(machines: MachineDto[], actor: Actor): Promise<MaintenanceStatusDto> {
    await this.acls.authorize(
      actor,
      'stop_maintenance',
      machines.map((m) => m.hostname ?? m.ip ?? ''),
      'stop maintenance',
    );
    return this.setMode(machines, actor, 'maintenance.stop', (m, id) => {
      if (m?.mode !== MachineMode.DOWN)
        throw new ArbiterException(
          MaintenanceErrorCode.MAINTENANCE_MACHINE_NOT_DOWN,
          `machine ${showMachine(id)} is not DOWN${m ? ` (it is ${m.mode})` : ''}; only DOWN machines can leave maintenance`,
          { machine: id },
        );
      return 'up';
    });
  }

  private async setMode(
    input: MachineDto[],
    actor: Actor,
    action: AuditAction,
    check: (m: MaintenanceMachineEntity | null, id: MachineId) => 'down' | 'up',
  ): Promise<MaintenanceStatusDto> {
    const ids = input.map((m, i) => machineId(m, `machines.${i}`));
    await this.db.transaction(async (tx) => {
      await lockDomain(tx, LockDomain.MAINTENANCE);
      const before = await this.status(tx);
      const now = new Date();
      for (const id of ids) {
        const m = await this.repo.machine(tx, id);
        if (check(m, id) === 'down') await this.repo.markDown(tx, id, now);
        else {
          await this.repo.removeMachine(tx, id);
          await this.repo.forgetAnswers(tx, id);
        }
      }
      // Windows left without machines leave the schedule.
      await this.repo.dropEmptyWindows(tx);
      await this.audit.record(tx, actor, { action, targetType: 'maintenance', targetId: null, before, after: await this.status(tx) });
    });
    this.events.emit({ type: 'maintenance.updated' });
    return this.status();
  }

  async status(tx: Tx = this.db.manager): Promise<MaintenanceStatusDto> {
    const [machines, responses] = await Promise.all([this.repo.machines(tx), this.repo.answers(tx)]);
    return {
      drainingMachines: machines
        .filter((m) => m.mode === MachineMode.DRAINING)
        .map((m) => ({
          machine: { hostname: m.hostname, ip: m.ip },
          statuses: responses
            .filter((r) => r.hostname === m.hostname && r.ip === m.ip)
            .map((r) => ({ frameworkId: r.frameworkId, status: r.status, updatedAt: r.updatedAt.toISOString() })),
        })),
      downMachines: machines.filter((m) => m.mode === MachineMode.DOWN).map((m) => ({ hostname: m.hostname, ip: m.ip })),
    };
  }
}
