/**
 * What the README tells a user to type, typed the same way: `npx arbiter ...` from the
 * repository's root in a child process, its output checked. Each command is first looked up
 * in the README, so a command the README stops showing (or shows differently) fails here too.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defined } from '@arbiter/test-support';
import { ADMIN_TOKEN } from '../../../control-plane/test/support/admin-token';
import { freshDatabase } from '../../../control-plane/test/support/postgres';
import { AgentProcess, type ControlPlaneProcess, spawnControlPlane } from '../../../control-plane/test/support/process';
import { lastLine, root, type Run, runArbiter, untilAgents } from './npx-arbiter';

const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** `npx arbiter ARGS` as typed at the repository's root; `shown` is how the README writes it. */
function npxArbiter(shown: string, args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  expect(readme).toContain(shown);
  return runArbiter(args, env);
}

describe('the README, typed as a user types it', () => {
  it('npx arbiter example drf-demo: prints each offer and ends with the result line', async () => {
    // A temporary cluster of its own, on an embedded PostgreSQL server: a user of the README has
    // no DATABASE_URL. (On the run's server, its scratch database's DROP DATABASE waits for a
    // checkpoint of the whole server, which fsyncs every file the run's databases wrote: up to a
    // minute.)
    const r = await npxArbiter('`npx arbiter example drf-demo`', ['example', 'drf-demo'], { DATABASE_URL: undefined });
    expect(r.stderr).not.toMatch(/TypeError|Error:/);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('offer to'))).toHaveLength(5);
    expect(r.stdout).toContain('settled: A runs 3 tasks at a dominant share of 0.667, B runs 2 at 0.667');
    // The line the README shows, exactly.
    expect(readme).toContain(`\`${lastLine(r.stdout)}\``);
    expect(JSON.parse(lastLine(r.stdout))).toEqual({ tasks: { A: 3, B: 2 }, dominantShares: { A: 0.667, B: 0.667 } });
    // A whole cluster starts and stops in the command: slow while the rest of the suite shares the
    // machine's cores (the command's own limit, 120 s, comes first).
  }, 150_000);

  it('npx arbiter simulate FILE.json: replays a scenario and reports it passed', async () => {
    const r = await npxArbiter('`npx arbiter simulate FILE.json...`', ['simulate', 'libs/allocator/scenarios/sorter-drf-example.json']);
    expect([r.status, lastLine(r.stdout)]).toEqual([0, '1 passed, 0 failed']);
  });

  it('npx arbiter db check: the entities and the committed migrations agree', async () => {
    // On an embedded server, as a user without DATABASE_URL runs it (see the drf-demo's test).
    const r = await npxArbiter('`npx arbiter db check`', ['db', 'check'], { DATABASE_URL: undefined });
    expect([r.status, r.stdout.trim()]).toEqual([0, 'entities and migrations agree']);
    // Nothing on stderr: no driver's deprecation warning either.
    expect(r.stderr).toBe('');
  });

  it('npx arbiter openapi --check: the document and libs/contracts/src/api.ts, its TypeScript types, are up to date', async () => {
    expect(readme).toContain('`--check` fails when either is stale');
    const r = await npxArbiter('`npx arbiter openapi`', ['openapi', '--check']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('libs/contracts/openapi.json is up to date');
    expect(r.stdout).toContain('libs/contracts/src/api.ts is up to date');
    expect(r.status).toBe(0);
  });

  describe('on a running cluster (a control plane and an agent as processes)', () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    let cp: ControlPlaneProcess;
    let dir: string;
    let agent: AgentProcess;
    // As the README shows it: the master and the admin token in the environment, never a token on the command line.
    const admin = () => ({ ARBITER_MASTER: cp.url, ARBITER_TOKEN: ADMIN_TOKEN });

    beforeAll(async () => {
      db = await freshDatabase();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-readme-'));
      fs.chmodSync(dir, 0o711);
      cp = await spawnControlPlane({
        DATABASE_URL: db.url,
        PORT: '0',
        ARBITER_ADMIN_TOKEN: ADMIN_TOKEN,
        ARBITER_ALLOCATION_INTERVAL: '0.2',
      });
      agent = new AgentProcess('readme-agent', path.join(dir, 'agent'), 'cpus:2;mem:2048');
      agent.start(cp.url, ADMIN_TOKEN);
    });

    afterAll(async () => {
      await agent.stop();
      await cp.stop();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("principal create, token create, then example batch with that framework principal's token", async () => {
      const created = await npxArbiter(
        '`npx arbiter principal create team-a --kind framework`',
        ['principal', 'create', 'team-a', '--kind', 'framework'],
        admin(),
      );
      expect([created.status, created.stdout.trim(), created.stderr]).toEqual([0, 'created FRAMEWORK principal team-a', '']);
      const issued = await npxArbiter(
        '`npx arbiter token create --principal team-a`',
        ['token', 'create', '--principal', 'team-a'],
        admin(),
      );
      expect(issued.status).toBe(0);
      expect(issued.stderr).toContain('for team-a (shown only now)');
      const token = defined(/^arb_\S+$/m.exec(issued.stdout)?.[0], 'the token printed');

      const listed = await npxArbiter('`principal list`', ['principal', 'list'], admin());
      expect(listed.stderr).toBe('');
      expect(listed.stdout).toMatch(/^team-a +FRAMEWORK +1 live token\(s\)$/m);

      await untilAgents(cp.url, ADMIN_TOKEN, 1);
      const batch = await npxArbiter("`npx arbiter example batch --master URL --token T 'cmd 1' 'cmd 2'`", [
        'example',
        'batch',
        '--master',
        cp.url,
        '--token',
        token,
        'true',
        'echo hi',
      ]);
      expect([batch.status, lastLine(batch.stdout)]).toEqual([0, '{"finished":2,"failed":0}']);
    });
  });
});
