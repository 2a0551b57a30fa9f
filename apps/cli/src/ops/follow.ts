/**
 * `--follow`: a live view that re-renders when the cluster changes rather than on a timer. It
 * listens on the control plane's /events socket (the dashboard's stream, filtered by the
 * caller's view ACLs) and fetches and prints the view again after the events it cares about
 * (a burst of them: once, a quarter second after the first), and every 30 s regardless (for the
 * ages in it). While the socket is not connected (a standby refused it, no control plane
 * answers) it fetches every 2 s, as `--watch 2` does, and the socket follows the master list and
 * the leader a standby names, as an agent's does.
 */
import { EVENTS_NAMESPACE } from '@arbiter/contracts/events';
import { MasterUrls, reconnectElsewhere, refusalOf, leftSilent, socketClientOptions } from '@arbiter/contracts/masters';
import type { Command } from 'commander';
import type { Client } from './client';
import { ApiError, describe, UnreachableError, UsageError } from './errors';
import { emit, type OutputFlags, show } from './output';

export interface FollowFlags extends OutputFlags {
  follow?: boolean;
}

/** `-f, --follow` on a view that re-renders on the cluster's events. */
export function followOption(cmd: Command): Command {
  return cmd.option('-f, --follow', 'print again as the cluster changes (its /events stream), until Ctrl-C');
}

/** The events after which agents' and tasks' views are fetched again. */
export const AGENT_EVENTS = ['agent.added', 'agent.updated', 'agent.removed', 'task.updated'] as const;
export const TASK_EVENTS = ['task.updated'] as const;

/** --follow if asked for (not with --watch), else show()'s single render or --watch. */
export async function view<T>(
  client: Client,
  events: readonly string[],
  flags: FollowFlags,
  fetch: () => Promise<T>,
  human: (data: T) => string,
  done?: (data: T) => boolean,
): Promise<void> {
  if (!flags.follow) return show(flags, fetch, human, done);
  if (flags.watch !== undefined) throw new UsageError('--follow or --watch: one of them');
  return follow(client, events, flags, fetch, human, done);
}

const QUIET_MS = 30_000;
const DISCONNECTED_MS = 2_000;
const BURST_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const passing = (err: unknown) => err instanceof UnreachableError || (err instanceof ApiError && err.status >= 500);

async function follow<T>(
  client: Client,
  events: readonly string[],
  flags: FollowFlags,
  fetch: () => Promise<T>,
  human: (data: T) => string,
  done?: (data: T) => boolean,
): Promise<void> {
  const { io } = await import('socket.io-client');
  const masters = new MasterUrls(client.masters);
  const socket = io(new URL(EVENTS_NAMESPACE, client.base()).toString(), {
    ...socketClientOptions({ token: client.token, ...(client.ca ? { ca: client.ca } : {}) }),
  });
  const state = { stop: false, dirty: false, wake: undefined as (() => void) | undefined };
  const wake = () => state.wake?.();
  // Read through functions: the events and Ctrl-C set them while this waits.
  const changed = () => state.dirty;
  const stopped = () => state.stop;
  const wanted = new Set(events);
  socket.onAny((name: string) => {
    if (!wanted.has(name)) return;
    state.dirty = true;
    wake();
  });
  socket.on('connect_error', (err: Error & { data?: unknown }) => {
    if ((err.data as { code?: string } | undefined)?.code?.startsWith('AUTH_')) return; // the fetches say so, with their exit code
    reconnectElsewhere(socket, EVENTS_NAMESPACE, masters, refusalOf(err), () => !state.stop);
  });
  socket.on('disconnect', (reason: string) => leftSilent(socket, EVENTS_NAMESPACE, masters, reason));
  const onSigint = () => {
    state.stop = true;
    wake();
  };
  process.once('SIGINT', onSigint);
  socket.connect();
  try {
    for (let first = true; !stopped(); first = false) {
      state.dirty = false;
      let data: T | undefined;
      try {
        data = await fetch();
      } catch (err) {
        if (!passing(err)) throw err;
        console.error(`${describe(err as Error).line} (asking again in ${DISCONNECTED_MS / 1000} s)`);
      }
      if (data !== undefined) {
        if (process.stdout.isTTY && !flags.json) process.stdout.write('\x1b[H\x1b[2J');
        else if (!first && !flags.json) console.log('');
        if (!flags.json) console.log(`${new Date().toISOString().slice(11, 19)}  following the cluster's events (Ctrl-C ends)`);
        emit({ ...flags, watch: true }, data, human);
        if (done?.(data)) return;
      }
      if (!changed()) {
        const ms = socket.connected && data !== undefined ? QUIET_MS : DISCONNECTED_MS;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          state.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        state.wake = undefined;
      }
      if (!stopped()) await sleep(BURST_MS);
    }
  } finally {
    process.off('SIGINT', onSigint);
    state.stop = true;
    socket.close();
  }
}
