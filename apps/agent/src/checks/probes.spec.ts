import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { until } from '@arbiter/test-support';
import { processRunner } from './command';
import { type CommandRunner, probeOf } from './probes';

const never: CommandRunner = () => Promise.reject(new Error('no command expected'));
const listen = async (server: net.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
};
const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));
const signal = () => new AbortController().signal;

describe('probes', () => {
  it('HTTP: 200-399 pass by default, others fail; listed statuses replace the default', async () => {
    const server = http.createServer((req, res) => {
      res.statusCode = Number(req.url?.slice(1));
      res.end();
    });
    const port = await listen(server);
    try {
      const at = (p: string, statuses?: number[]) =>
        probeOf({ type: 'HTTP', port, path: p, ...(statuses ? { statuses } : {}) }, never)(signal());
      expect(await at('/200')).toMatchObject({ ok: true, status: { type: 'HTTP', statusCode: 200 } });
      expect(await at('/302')).toMatchObject({ ok: true, status: { statusCode: 302 } });
      expect(await at('/503')).toMatchObject({
        ok: false,
        status: { statusCode: 503 },
        message: expect.stringMatching(/answered 503$/) as string,
      });
      expect(await at('/503', [503])).toMatchObject({ ok: true });
      expect(await at('/200', [204])).toMatchObject({ ok: false });
      // A path without its leading slash is taken from the root.
      expect(await at('204')).toMatchObject({ ok: true, status: { statusCode: 204 } });
    } finally {
      await close(server);
    }
  });

  it('HTTP: nothing listening fails with the error; an aborted probe settles', async () => {
    const server = net.createServer();
    const port = await listen(server);
    await close(server);
    expect(await probeOf({ type: 'HTTP', port }, never)(signal())).toMatchObject({
      ok: false,
      status: { type: 'HTTP' },
      message: expect.stringMatching(/ECONNREFUSED/) as string,
    });
    const hanging = http.createServer(() => undefined);
    const slow = await listen(hanging);
    try {
      const abort = new AbortController();
      const probed = probeOf({ type: 'HTTP', port: slow }, never)(abort.signal);
      abort.abort();
      expect(await probed).toMatchObject({ ok: false });
    } finally {
      hanging.closeAllConnections();
      await close(hanging);
    }
  });

  it('TCP: connected or not', async () => {
    const server = net.createServer((s) => s.destroy());
    const port = await listen(server);
    expect(await probeOf({ type: 'TCP', port }, never)(signal())).toEqual({
      ok: true,
      status: { type: 'TCP', succeeded: true },
      message: `connected to 127.0.0.1:${port}`,
    });
    await close(server);
    expect(await probeOf({ type: 'TCP', port }, never)(signal())).toMatchObject({ ok: false, status: { type: 'TCP', succeeded: false } });
  });

  describe('COMMAND, run by processRunner', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-probe-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const joined: number[] = [];
    const runner = processRunner({ sandbox: dir, env: { PATH: '/usr/bin:/bin', GREETING: 'hi' }, join: (pid) => joined.push(pid) });

    it('passes on exit 0, fails with the exit code otherwise; runs in the sandbox with the environment, joined first', async () => {
      expect(
        await probeOf({ type: 'COMMAND', command: { shell: 'test "$GREETING" = hi && pwd > where' } }, runner)(signal()),
      ).toMatchObject({
        ok: true,
        status: { type: 'COMMAND', exitCode: 0 },
      });
      expect(fs.readFileSync(path.join(dir, 'where'), 'utf8').trim()).toBe(fs.realpathSync(dir));
      expect(joined).toHaveLength(1);
      expect(
        await probeOf({ type: 'COMMAND', command: { value: '/bin/sh', arguments: ['-c', 'exit 7'] } }, runner)(signal()),
      ).toMatchObject({
        ok: false,
        status: { type: 'COMMAND', exitCode: 7 },
        message: 'the command exited with status 7',
      });
    });

    it('an aborted command is killed, with whatever it started', async () => {
      const abort = new AbortController();
      const probed = probeOf({ type: 'COMMAND', command: { shell: 'sleep 30 & echo $! > child; wait' } }, runner)(abort.signal);
      const child = path.join(dir, 'child');
      await until(() => fs.existsSync(child) && fs.readFileSync(child, 'utf8').trim() !== '', 5_000, 'the command started its child');
      abort.abort();
      expect(await probed).toMatchObject({
        ok: false,
        status: { type: 'COMMAND' },
        message: expect.stringMatching(/killed by SIGKILL/) as string,
      });
      const pid = Number(fs.readFileSync(child, 'utf8'));
      // The group's SIGKILL reached the command's child too.
      await until(
        () => !fs.existsSync(`/proc/${pid}`) || fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z',
        5_000,
        'the child gone',
      );
    });

    it('a command that cannot be isolated does not run', async () => {
      const refusing = processRunner({
        sandbox: dir,
        env: {},
        join: () => {
          throw new Error('no cgroup');
        },
      });
      expect(await probeOf({ type: 'COMMAND', command: { shell: 'touch ran' } }, refusing)(signal())).toMatchObject({
        ok: false,
        message: "could not isolate the check's command: no cgroup",
      });
      expect(fs.existsSync(path.join(dir, 'ran'))).toBe(false);
    });
  });
});
