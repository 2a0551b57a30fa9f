'use client';
import { useHydrated, When } from '@/components/when';
/**
 * Maintenance: windows on a timeline, each machine's mode, the frameworks' answers to inverse
 * offers; schedule a window, start and stop maintenance, remove a window.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type SubmitEvent, useEffect, useMemo, useState } from 'react';
import { ActionDialog } from '@/components/dialog';
import { useToast } from '@/components/toast';
import { ActionError, Badge, ErrorPanel, Field, Loading, PageHeader, Panel } from '@/components/ui';
import { api, call, fieldError, formError, type Schemas } from '@/lib/api';
import { dateTime, duration, localInput, shortId } from '@/lib/format';
import { useLiveInvalidate } from '@/lib/live';
import { frameworkNames, keys, q } from '@/lib/queries';

type Window = Schemas['WindowDto'];
type Machine = Schemas['MachineIdDto'];
const machineName = (m: { hostname?: string; ip?: string }) => m.hostname || m.ip || '?';
const sameMachine = (a: { hostname?: string; ip?: string }, b: { hostname?: string; ip?: string }) =>
  (a.hostname ?? '') === (b.hostname ?? '') && (a.ip ?? '') === (b.ip ?? '');

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => Promise.all([keys.maintenance, keys.agents, keys.cluster].map((k) => queryClient.invalidateQueries({ queryKey: k })));
}

type Mode = 'DRAINING' | 'DOWN';

function Timeline({ windows, modeOf }: { windows: Window[]; modeOf: (m: { hostname?: string; ip?: string }) => Mode }) {
  // Placed against the browser's clock and time zone: drawn once the page is live.
  const hydrated = useHydrated();
  if (!hydrated) return <Loading rows={2} label="Drawing the timeline" />;
  const now = Date.now();
  const rows = windows.flatMap((w) => w.machines.map((m) => ({ m, w })));
  const starts = windows.map((w) => new Date(w.unavailability.start).getTime());
  const ends = windows.map((w) =>
    w.unavailability.durationSeconds == null ? null : new Date(w.unavailability.start).getTime() + w.unavailability.durationSeconds * 1000,
  );
  const from = Math.min(now - 3600_000, ...starts);
  const to = Math.max(now + 24 * 3600_000, ...ends.map((e, i) => e ?? starts[i] + 6 * 3600_000)) + 3600_000;
  const x = (t: number) => `${((Math.min(Math.max(t, from), to) - from) / (to - from)) * 100}%`;
  const ticks = Array.from({ length: 6 }, (_, i) => from + ((to - from) * (i + 0.5)) / 6);
  if (!rows.length) return <div className="empty">Nothing scheduled.</div>;
  return (
    <div className="timeline" role="img" aria-label="Maintenance windows over time">
      <div className="axis">
        <div className="label">machine</div>
        <div className="ticks">
          {ticks.map((t) => (
            <span key={t} style={{ left: x(t) }}>
              {dateTime(new Date(t).toISOString()).slice(0, 18)}
            </span>
          ))}
        </div>
      </div>
      {rows.map(({ m, w }) => {
        const start = new Date(w.unavailability.start).getTime();
        const end = w.unavailability.durationSeconds == null ? to : start + w.unavailability.durationSeconds * 1000;
        const mode = modeOf(m);
        return (
          <div className="row" key={`${m.hostname}|${m.ip}`}>
            <div className="label" title={machineName(m)}>
              {machineName(m)}
            </div>
            <div className="track">
              <div className="now" style={{ left: x(now) }} title="now" />
              <div
                className={`win ${mode === 'DOWN' ? 'down' : ''}`}
                style={{ left: x(start), width: `calc(${x(end)} - ${x(start)})` }}
                title={`${dateTime(w.unavailability.start)} for ${duration(w.unavailability.durationSeconds)}`}
              >
                {mode === 'DOWN' ? 'down' : 'scheduled'} · {duration(w.unavailability.durationSeconds)}
              </div>
            </div>
          </div>
        );
      })}
    </div>
  );
}

function ScheduleForm({ windows }: { windows: Window[] }) {
  const [machines, setMachines] = useState('');
  // In the browser's time zone, so set once the page is live.
  const [start, setStart] = useState('');
  useEffect(() => setStart(localInput(new Date(Date.now() + 3600_000))), []);
  const [hours, setHours] = useState('2');
  const invalidate = useInvalidate();
  const toast = useToast();
  const schedule = useMutation({
    mutationFn: () => {
      const when = new Date(start);
      const list = machines
        .split(/[\s,;]+/)
        .filter(Boolean)
        .map((h) => (/^[\d.:]+$/.test(h) && h.includes('.') ? { ip: h } : { hostname: h }));
      const durationSeconds = hours.trim() === '' ? null : Math.round(Number(hours) * 3600);
      return call(
        api.PUT('/api/v1/maintenance/schedule', {
          body: {
            windows: [
              ...windows,
              { machines: list, unavailability: { start: Number.isNaN(when.getTime()) ? start : when.toISOString(), durationSeconds } },
            ],
          },
        }),
      );
    },
    onSuccess: async () => {
      await invalidate();
      toast('maintenance window scheduled');
      setMachines('');
    },
  });
  const err = schedule.error;
  const errors = {
    machines: fieldError(err, 'machines', ['MAINTENANCE_DUPLICATE_MACHINE']),
    start: fieldError(err, 'start'),
    duration: fieldError(err, 'durationSeconds'),
  };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    schedule.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Schedule a maintenance window" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div className="form-row">
        <Field label="Machines" error={errors.machines} hint="hostnames or IPs, separated by commas">
          {(p) => <input {...p} value={machines} onChange={(e) => setMachines(e.target.value)} placeholder="node-1, node-2" />}
        </Field>
        <Field label="Start" error={errors.start}>
          {(p) => <input {...p} type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} />}
        </Field>
        <Field label="Duration (hours)" error={errors.duration} hint="empty: until stopped">
          {(p) => <input {...p} type="number" min={0} step="any" value={hours} onChange={(e) => setHours(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={schedule.isPending}>
          {schedule.isPending ? 'Scheduling…' : 'Schedule'}
        </button>
      </div>
      <ActionError error={formError(err, Object.values(errors))} />
    </form>
  );
}

type Pending = { kind: 'start' | 'stop'; machine: Machine } | { kind: 'remove'; index: number } | null;

export function MaintenanceView() {
  const schedule = useQuery(q.schedule());
  const status = useQuery(q.maintenanceStatus());
  const names = useQuery(frameworkNames());
  const [pending, setPending] = useState<Pending>(null);
  const invalidate = useInvalidate();
  const toast = useToast();
  useLiveInvalidate(['agent.updated'], [keys.maintenance], 2000);

  const modeOf = useMemo(() => {
    const down = status.data?.downMachines ?? [];
    return (m: { hostname?: string; ip?: string }): Mode => (down.some((d) => sameMachine(d, m)) ? 'DOWN' : 'DRAINING');
  }, [status.data]);

  if (schedule.error || status.error)
    return <ErrorPanel error={schedule.error ?? status.error} onRetry={() => void (schedule.refetch(), status.refetch())} />;
  if (!schedule.data || !status.data) return <Loading rows={6} />;
  const windows = schedule.data.windows;
  const machines: Array<{ m: Machine; w: Window; index: number }> = windows.flatMap((w, index) =>
    w.machines.map((m) => ({ m: { hostname: m.hostname ?? '', ip: m.ip ?? '' }, w, index })),
  );

  const act = async () => {
    if (!pending) return;
    if (pending.kind === 'remove')
      await call(api.PUT('/api/v1/maintenance/schedule', { body: { windows: windows.filter((_, i) => i !== pending.index) } }));
    else if (pending.kind === 'start') await call(api.POST('/api/v1/maintenance/start', { body: { machines: [pending.machine] } }));
    else await call(api.POST('/api/v1/maintenance/stop', { body: { machines: [pending.machine] } }));
    await invalidate();
    toast(
      pending.kind === 'remove'
        ? 'window removed'
        : `maintenance ${pending.kind === 'start' ? 'started' : 'stopped'} on ${machineName(pending.machine)}`,
    );
  };

  return (
    <>
      <PageHeader
        title="Maintenance"
        description="Scheduled machines are DRAINING: frameworks with tasks there get inverse offers. Starting maintenance takes machines DOWN (no offers); stopping brings them back UP and out of the schedule."
      />
      <Panel title="Schedule a window">
        <ScheduleForm windows={windows} />
      </Panel>
      <Panel title="Timeline">
        <Timeline windows={windows} modeOf={modeOf} />
      </Panel>
      <Panel title="Machines">
        {machines.length ? (
          <div className="table-wrap">
            <table className="data" aria-label="Machines in the schedule">
              <thead>
                <tr>
                  <th>Machine</th>
                  <th>Mode</th>
                  <th>Window</th>
                  <th>Inverse offers answered</th>
                  <th>Actions</th>
                </tr>
              </thead>
              <tbody>
                {machines.map(({ m, w, index }) => {
                  const mode = modeOf(m);
                  const statuses = status.data.drainingMachines.find((d) => sameMachine(d.machine, m))?.statuses ?? [];
                  return (
                    <tr key={`${m.hostname}|${m.ip}`}>
                      <td>
                        {machineName(m)}
                        {m.hostname && m.ip ? <span className="muted"> ({m.ip})</span> : null}
                      </td>
                      <td>
                        <Badge tone={mode === 'DOWN' ? 'bad' : 'warn'}>{mode}</Badge>
                      </td>
                      <td>
                        <When at={w.unavailability.start} /> · {duration(w.unavailability.durationSeconds)}
                      </td>
                      <td>
                        {statuses.length ? (
                          statuses.map((s) => (
                            <span key={s.frameworkId} style={{ marginRight: 8 }}>
                              {names.data?.[s.frameworkId] ?? shortId(s.frameworkId)}:{' '}
                              <Badge tone={s.status === 'ACCEPT' ? 'ok' : s.status === 'DECLINE' ? 'bad' : 'none'}>
                                {s.status.toLowerCase()}
                              </Badge>
                            </span>
                          ))
                        ) : (
                          <span className="muted">{mode === 'DOWN' ? '—' : 'no answer yet'}</span>
                        )}
                      </td>
                      <td>
                        <div className="actions">
                          {mode === 'DOWN' ? (
                            <button type="button" className="small" onClick={() => setPending({ kind: 'stop', machine: m })}>
                              Stop maintenance
                            </button>
                          ) : (
                            <button type="button" className="small danger" onClick={() => setPending({ kind: 'start', machine: m })}>
                              Start maintenance
                            </button>
                          )}
                          <button type="button" className="small" onClick={() => setPending({ kind: 'remove', index })}>
                            Remove window
                          </button>
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : (
          <div className="empty">No machine is scheduled for maintenance.</div>
        )}
      </Panel>
      <ActionDialog
        open={pending !== null}
        onClose={() => setPending(null)}
        title={
          pending?.kind === 'remove'
            ? 'Remove this window?'
            : pending?.kind === 'start'
              ? `Start maintenance on ${'machine' in pending ? machineName(pending.machine) : ''}?`
              : `Stop maintenance on ${pending && 'machine' in pending ? machineName(pending.machine) : ''}?`
        }
        confirmLabel={pending?.kind === 'remove' ? 'Remove window' : pending?.kind === 'start' ? 'Start maintenance' : 'Stop maintenance'}
        danger={pending?.kind !== 'stop'}
        onConfirm={act}
      >
        <p>
          {pending?.kind === 'start'
            ? 'The machine goes DOWN: its agents get no offers and their outstanding offers are rescinded. Tasks are not killed by this.'
            : pending?.kind === 'stop'
              ? 'The machine comes back UP, leaves the schedule, and its agents are offered again.'
              : 'The window and its machines leave the schedule (refused while one of them is DOWN).'}
        </p>
      </ActionDialog>
    </>
  );
}
