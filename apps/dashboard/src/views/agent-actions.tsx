'use client';
/**
 * What an operator does to an agent: deactivate and reactivate, drain, schedule maintenance
 * and take it on or off the whitelist. Destructive actions are confirmed; every failure shows
 * the API's message in the dialog.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ActionDialog } from '@/components/dialog';
import { useToast } from '@/components/toast';
import { Menu } from '@/components/menu';
import { Field, Switch } from '@/components/ui';
import { api, call, type Schemas } from '@/lib/api';
import { localInput } from '@/lib/format';
import { keys } from '@/lib/queries';

type Agent = Schemas['AgentViewDto'];
type Dialog = 'deactivate' | 'drain' | 'maintenance' | null;

export function useAgentMutations() {
  const queryClient = useQueryClient();
  return async <T,>(work: Promise<T>): Promise<T> => {
    const result = await work;
    await Promise.all(
      [keys.agents, keys.cluster, keys.whitelist, keys.maintenance].map((k) => queryClient.invalidateQueries({ queryKey: k })),
    );
    return result;
  };
}

export function AgentActions({ agent }: { agent: Agent }) {
  const [dialog, setDialog] = useState<Dialog>(null);
  const [grace, setGrace] = useState('');
  const [markGone, setMarkGone] = useState(false);
  // In the browser's time zone, so set once the page is live.
  const [start, setStart] = useState('');
  useEffect(() => setStart(localInput(new Date(Date.now() + 3600_000))), []);
  const [hours, setHours] = useState('2');
  const mutate = useAgentMutations();
  const toast = useToast();
  const gone = agent.status === 'GONE';
  const close = () => setDialog(null);
  const id = agent.id;

  const reactivate = async () => {
    try {
      await mutate(call(api.POST('/api/v1/agents/{id}/reactivate', { params: { path: { id } } })));
      toast(`${agent.hostname} is offered again`);
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err), 'bad');
    }
  };

  return (
    <div onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
      <Menu label="Actions">
        {agent.activated ? (
          <button type="button" role="menuitem" disabled={gone} onClick={() => setDialog('deactivate')}>
            Deactivate…
          </button>
        ) : (
          <button type="button" role="menuitem" disabled={gone || agent.drainState === 'DRAINING'} onClick={() => void reactivate()}>
            Reactivate
          </button>
        )}
        <button type="button" role="menuitem" disabled={gone || Boolean(agent.drainState)} onClick={() => setDialog('drain')}>
          Drain…
        </button>
        <button
          type="button"
          role="menuitem"
          disabled={gone || Boolean(agent.maintenance)}
          onClick={() => setDialog('maintenance')}
          title={agent.maintenance ? 'already in the maintenance schedule' : undefined}
        >
          Schedule maintenance…
        </button>
      </Menu>

      <ActionDialog
        open={dialog === 'deactivate'}
        onClose={close}
        title={`Deactivate ${agent.hostname}?`}
        confirmLabel="Deactivate"
        danger
        onConfirm={() =>
          mutate(call(api.POST('/api/v1/agents/{id}/deactivate', { params: { path: { id } } }))).then(() =>
            toast(`${agent.hostname} deactivated`),
          )
        }
      >
        <p>The agent gets no new offers and its outstanding offers are rescinded. Tasks running there keep running.</p>
      </ActionDialog>

      <ActionDialog
        open={dialog === 'drain'}
        onClose={close}
        title={`Drain ${agent.hostname}?`}
        confirmLabel="Drain"
        danger
        onConfirm={() =>
          mutate(
            call(
              api.POST('/api/v1/agents/{id}/drain', {
                params: { path: { id } },
                body: { ...(grace.trim() ? { maxGracePeriodSeconds: Number(grace) } : {}), markGone },
              }),
            ),
          ).then(() => toast(`${agent.hostname} is draining`))
        }
      >
        <p>
          The agent is deactivated and its {agent.usage.activeTasks} task(s) are killed: SIGTERM, then SIGKILL after the grace period. Once
          the last has ended the agent is DRAINED.
        </p>
        <Field label="Grace period (seconds)" hint="empty: 5 s">
          {(p) => <input {...p} type="number" min={0} step={1} value={grace} onChange={(e) => setGrace(e.target.value)} />}
        </Field>
        <label>
          <input type="checkbox" checked={markGone} onChange={(e) => setMarkGone(e.target.checked)} /> Mark the agent gone once drained (it
          can never come back under this id)
        </label>
      </ActionDialog>

      <ActionDialog
        open={dialog === 'maintenance'}
        onClose={close}
        title={`Schedule maintenance for ${agent.hostname}`}
        confirmLabel="Schedule"
        onConfirm={async () => {
          const when = new Date(start);
          if (Number.isNaN(when.getTime())) throw new Error('enter a start date and time');
          const schedule = await call(api.GET('/api/v1/maintenance/schedule'));
          const durationSeconds = hours.trim() === '' ? null : Math.round(Number(hours) * 3600);
          const windows = [
            ...schedule.windows,
            { machines: [{ hostname: agent.hostname }], unavailability: { start: when.toISOString(), durationSeconds } },
          ];
          await mutate(call(api.PUT('/api/v1/maintenance/schedule', { body: { windows } })));
          toast(`maintenance of ${agent.hostname} scheduled`);
        }}
      >
        <p>Frameworks with tasks on the machine get inverse offers from now on; when maintenance starts the agent gets no offers.</p>
        <div className="form-row">
          <Field label="Start">
            {(p) => <input {...p} type="datetime-local" required value={start} onChange={(e) => setStart(e.target.value)} />}
          </Field>
          <Field label="Duration (hours)" hint="empty: until stopped">
            {(p) => <input {...p} type="number" min={0} step="any" value={hours} onChange={(e) => setHours(e.target.value)} />}
          </Field>
        </div>
      </ActionDialog>
    </div>
  );
}

export function WhitelistSwitch({ agent, whitelistSet }: { agent: Agent; whitelistSet: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const mutate = useAgentMutations();
  const toast = useToast();
  const add = async () => {
    try {
      await mutate(call(api.PATCH('/api/v1/whitelist', { body: { add: [agent.hostname] } })));
      toast(`${agent.hostname} is on the whitelist`);
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err), 'bad');
    }
  };
  return (
    <span onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
      <Switch
        checked={agent.whitelisted}
        label={`${agent.hostname} on the whitelist`}
        disabled={agent.status === 'GONE'}
        onChange={(next) => (next ? void add() : setConfirming(true))}
      />
      <WhitelistDialog agent={agent} open={confirming} onClose={() => setConfirming(false)} whitelistSet={whitelistSet} />
    </span>
  );
}

function WhitelistDialog({
  agent,
  open,
  onClose,
  whitelistSet,
}: {
  agent: Agent;
  open: boolean;
  onClose: () => void;
  whitelistSet: boolean;
}) {
  const mutate = useAgentMutations();
  const toast = useToast();
  return (
    <ActionDialog
      open={open}
      onClose={onClose}
      title={`Take ${agent.hostname} off the whitelist?`}
      confirmLabel="Remove from whitelist"
      danger
      onConfirm={() =>
        mutate(call(api.PATCH('/api/v1/whitelist', { body: { remove: [agent.hostname] } }))).then(() =>
          toast(`${agent.hostname} is off the whitelist`),
        )
      }
    >
      <p>The agent gets no offers while it is off the whitelist; running tasks keep running.</p>
      {whitelistSet ? null : (
        <p className="message warn">
          No whitelist is set now, so every agent is offered. Removing this one sets a whitelist of every other present agent: agents that
          join later get no offers until they are added.
        </p>
      )}
    </ActionDialog>
  );
}
