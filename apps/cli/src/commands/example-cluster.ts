/**
 * The temporary cluster of the examples that bring their own (`drf-demo`, `kv`): a control plane
 * on a scratch database of DATABASE_URL's server, else on an embedded server in a temporary
 * folder, and agents running real processes. The folder is not under /tmp (each task gets a
 * private /tmp; its sandbox and volumes must stay reachable) and goes when the example ends.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '@arbiter/agent';

export interface TemporaryCluster {
  url: string;
  /** A token of a new principal of this kind (an agent's or a framework's own, as on a real cluster). */
  issueServiceToken(name: string, kind?: 'FRAMEWORK'): Promise<string>;
  /** An agent (not started) of these resources (Arbiter's text form), killing its tasks when it stops; same name, same work directory. */
  agent(name: string, token: string, resources: string): Agent;
}

export async function onTemporaryCluster<T>(name: string, body: (cluster: TemporaryCluster) => Promise<T>): Promise<T> {
  const cp = await import('@arbiter/control-plane');
  const { Agent } = await import('@arbiter/agent');
  const { parseResources } = await import('@arbiter/allocator');
  const { default: pino } = await import('pino');
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), `arbiter-${name}-`));
  // Its agents' tasks run as other users, who must reach their sandboxes in here.
  fs.chmodSync(dir, 0o711);
  const silent = pino({ level: 'silent' });
  console.log(`starting a temporary cluster in ${dir} ...`);
  const run = async (databaseUrl: string | undefined) => {
    const controlPlane = await cp.startControlPlane({
      ...cp.loadConfig({}),
      port: 0,
      dataDir: dir,
      databaseUrl,
      adminToken: `${name}-${Math.random().toString(36).slice(2)}-${Date.now()}`,
      allocationInterval: 0.2,
      logLevel: 'silent' as const,
    });
    try {
      return await body({
        url: controlPlane.url,
        issueServiceToken: (principal, kind) => controlPlane.issueServiceToken(principal, kind),
        agent: (hostname, token, resources) =>
          new Agent({
            master: controlPlane.url,
            token,
            hostname,
            resources: parseResources(resources).toJSON(),
            attributes: {},
            workDir: path.join(dir, hostname),
            killTasksOnExit: true,
            logger: silent,
          }),
      });
    } finally {
      await controlPlane.close();
    }
  };
  try {
    return process.env.DATABASE_URL ? await cp.withScratchDatabase(process.env.DATABASE_URL, (url) => run(url)) : await run(undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
