/**
 * One probe of a task, as Mesos's checkers make them: a command run beside the task (by a
 * `CommandRunner`, which gives it the task's isolation), an HTTP GET on 127.0.0.1 (healthy:
 * statuses 200-399, or the listed ones) or a TCP connect. Tasks, in containers too, share the
 * host's network, so the agent reaches their ports on 127.0.0.1. The checker aborts a probe past
 * its timeout.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { CheckStatus, Command, HealthCheck } from '@arbiter/contracts';

type CheckProbe = HealthCheck['probe'];

export interface ProbeResult {
  /** Whether the probe passed (a health check's verdict). */
  ok: boolean;
  /** What a general check reports (CheckStatus). */
  status: CheckStatus;
  /** Why it failed, for the log and the kill's message. */
  message: string;
}

export type Probe = (signal: AbortSignal) => Promise<ProbeResult>;

/** Runs a check's command with the task's isolation; resolves with its exit code, or a message when it could not run. */
export type CommandRunner = (command: Command, signal: AbortSignal) => Promise<{ exitCode?: number; error?: string }>;

const HOST = '127.0.0.1';

export function probeOf(probe: CheckProbe, commands: CommandRunner): Probe {
  switch (probe.type) {
    case 'COMMAND':
      return async (signal) => {
        const { exitCode, error } = await commands(probe.command, signal);
        const ok = exitCode === 0;
        const message = error ?? `the command exited with status ${exitCode}`;
        return { ok, status: { type: 'COMMAND', ...(exitCode === undefined ? {} : { exitCode }) }, message };
      };
    case 'HTTP':
      return (signal) => httpProbe(probe, signal);
    case 'TCP':
      return (signal) => tcpProbe(probe.port, signal);
  }
}

function httpProbe(probe: Extract<CheckProbe, { type: 'HTTP' }>, signal: AbortSignal): Promise<ProbeResult> {
  const url = `${probe.scheme ?? 'http'}://${HOST}:${probe.port}${probe.path?.startsWith('/') ? '' : '/'}${probe.path ?? ''}`;
  return new Promise((resolve) => {
    const failed = (message: string) => resolve({ ok: false, status: { type: 'HTTP' }, message: `GET ${url}: ${message}` });
    // A task's own certificate is not checked (as Mesos's curl -k): the probe asks whether it answers.
    const get = probe.scheme === 'https' ? https.get : http.get;
    const req = get(url, { signal, rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      const ok = probe.statuses?.length ? probe.statuses.includes(code) : code >= 200 && code < 400;
      resolve({ ok, status: { type: 'HTTP', statusCode: code }, message: `GET ${url} answered ${code}` });
      req.destroy();
    });
    req.on('error', (e) => failed(e.message));
  });
}

function tcpProbe(port: number, signal: AbortSignal): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port, signal });
    socket.once('connect', () => {
      socket.destroy();
      resolve({ ok: true, status: { type: 'TCP', succeeded: true }, message: `connected to ${HOST}:${port}` });
    });
    socket.once('error', (e) => {
      socket.destroy();
      resolve({ ok: false, status: { type: 'TCP', succeeded: false }, message: `could not connect to ${HOST}:${port}: ${e.message}` });
    });
  });
}
