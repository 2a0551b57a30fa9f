import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, loadConfig } from './config.schema';

const problems = (env: Record<string, string>, flags: Record<string, string> = {}) => {
  try {
    loadConfig(env, flags);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.setting} ${p.message}`);
    throw err;
  }
  return [];
};

describe('loadConfig', () => {
  it('has defaults for every setting that needs one, and resolves the data directory', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, allocationInterval: 1, agentTimeout: 15, agentReregisterTimeout: 600, offerTimeout: 0 });
    expect(c.logLevel).toBe('info');
    expect(c.databaseUrl).toBeUndefined();
    expect(c.dataDir.startsWith('/')).toBe(true);
  });

  it('reads environment variables (trimmed, case-insensitive levels); a flag wins; empty counts as unset', () => {
    const c = loadConfig(
      { PORT: ' 9000 ', LOG_LEVEL: ' DEBUG ', ARBITER_AGENT_TIMEOUT: '2.5', ARBITER_OFFER_TIMEOUT: '' },
      { port: '9001' },
    );
    expect([c.port, c.logLevel, c.agentTimeout, c.offerTimeout]).toEqual([9001, 'debug', 2.5, 0]);
  });

  it('reads a modules file (--modules, ARBITER_MODULES) and names what is wrong with it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-config-modules-'));
    try {
      const good = path.join(dir, 'modules.json');
      fs.writeFileSync(good, JSON.stringify({ hookTimeoutMs: 100, modules: [{ use: './m.js', parameters: { a: 1 } }] }));
      expect(loadConfig({ ARBITER_MODULES: good }).modules).toEqual({
        file: good,
        baseDir: dir,
        hookTimeoutMs: 100,
        modules: [{ use: './m.js', parameters: { a: 1 } }],
      });
      const bad = path.join(dir, 'bad.json');
      fs.writeFileSync(bad, JSON.stringify({ modules: [{ name: 'x' }] }));
      expect(problems({}, { modules: bad })).toEqual([
        `--modules (ARBITER_MODULES) ${bad}: modules[0] has an unknown field "name" (fields: use, parameters) (got '${bad}')`,
      ]);
      expect(problems({ ARBITER_MODULES: path.join(dir, 'absent.json') })[0]).toMatch(/^ARBITER_MODULES cannot read the modules file /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names every bad setting at once, with what it got unless the setting is secret', () => {
    expect(
      problems({ PORT: 'eighty', ARBITER_ALLOCATION_INTERVAL: '0', ARBITER_ADMIN_TOKEN: 'short', DATABASE_URL: 'mysql://x@y/z' }),
    ).toEqual([
      "PORT must be a whole number from 0 to 65535 (got 'eighty')",
      'DATABASE_URL must use the postgres:// scheme, not mysql://',
      'ARBITER_ADMIN_TOKEN must be at least 16 characters (use e.g. `openssl rand -hex 32`)',
      "ARBITER_ALLOCATION_INTERVAL must be a number of seconds from 0.05 to 3600 (got '0')",
    ]);
    expect(problems({}, { port: '-1' })).toEqual(["--port (PORT) must be a whole number from 0 to 65535 (got '-1')"]);
    expect(problems({ ARBITER_OFFER_TIMEOUT: 'Infinity', LOG_LEVEL: 'loud' })).toEqual([
      "ARBITER_OFFER_TIMEOUT must be a number from 0 to 86400 (got 'Infinity')",
      "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got 'loud')",
    ]);
  });

  it("reads Mesos's allocator settings: minimum allocatable resources, fairness-excluded names, GPU filtering", () => {
    const defaults = loadConfig({});
    expect([defaults.minAllocatableResources, defaults.fairSharingExcludedResourceNames, defaults.filterGpuResources]).toEqual([
      [{ cpus: 0.01 }, { mem: 32 }],
      [],
      true,
    ]);
    const c = loadConfig({
      ARBITER_MIN_ALLOCATABLE_RESOURCES: 'cpus:1;mem:128 | gpus:1',
      ARBITER_FAIR_SHARING_EXCLUDED_RESOURCE_NAMES: 'gpus, fpgas,gpus',
      ARBITER_FILTER_GPU_RESOURCES: 'False',
    });
    expect([c.minAllocatableResources, c.fairSharingExcludedResourceNames, c.filterGpuResources]).toEqual([
      [{ cpus: 1, mem: 128 }, { gpus: 1 }],
      ['gpus', 'fpgas'],
      false,
    ]);
    const wrong = "must read like 'cpus:0.01|mem:32': alternatives split by '|', each name:quantity split by ';', quantities above 0";
    expect(
      problems({
        ARBITER_MIN_ALLOCATABLE_RESOURCES: 'cpus:0|mem:32',
        ARBITER_FAIR_SHARING_EXCLUDED_RESOURCE_NAMES: 'gpus,bad name',
        ARBITER_FILTER_GPU_RESOURCES: 'maybe',
      }),
    ).toEqual([
      `ARBITER_MIN_ALLOCATABLE_RESOURCES ${wrong} (got 'cpus:0|mem:32')`,
      "ARBITER_FAIR_SHARING_EXCLUDED_RESOURCE_NAMES must be resource names split by commas, e.g. 'gpus' ('bad name' is not one) (got 'gpus,bad name')",
      "ARBITER_FILTER_GPU_RESOURCES must be true or false (got 'maybe')",
    ]);
    expect(problems({ ARBITER_MIN_ALLOCATABLE_RESOURCES: 'cpus:1||mem:1' })).toEqual([
      `ARBITER_MIN_ALLOCATABLE_RESOURCES ${wrong} (got 'cpus:1||mem:1')`,
    ]);
  });
});
