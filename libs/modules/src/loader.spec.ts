/**
 * The loader against module packages written to a temporary directory in the test (a
 * package.json and a CommonJS file, as `npm pack` of a built module gives): found by package
 * name or path, parameters passed, every refusal one sentence.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HierarchicalAllocator, parseResources } from '@arbiter/allocator';
import { loadModules, ModuleLoadError } from './loader';
import { parseModulesDocument, readModulesFile } from './modules-file';
import { type ModuleHost, MODULE_API_VERSION } from './points';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-modules-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes node_modules/<name> with a main file of `body` (CommonJS), as an installed package. */
function writePackage(name: string, body: string): void {
  const root = path.join(dir, 'node_modules', name);
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(root, 'index.js'), body);
}

const moduleSource = (fields: { name?: string; apiVersion?: number; points: string[]; instance: string }) => `
exports.default = {
  name: ${JSON.stringify(fields.name ?? 'test-module')},
  apiVersion: ${fields.apiVersion ?? MODULE_API_VERSION},
  points: ${JSON.stringify(fields.points)},
  create(parameters) { return ${fields.instance}; },
};`;

function modulesFile(modules: unknown[], extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'modules.json');
  fs.writeFileSync(file, JSON.stringify({ modules, ...extra }));
  return file;
}

const load = (file: string, host: ModuleHost = 'control-plane') => loadModules(readModulesFile(file), { host });
const refusal = async (file: string, host: ModuleHost = 'control-plane') => {
  const err = await load(file, host).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModuleLoadError);
  return (err as Error).message;
};

describe('loadModules', () => {
  it('loads a package by name and a file by path, in order, with their parameters', async () => {
    writePackage(
      '@acme/labels',
      moduleSource({
        name: 'labels',
        points: ['control-plane:task-launch'],
        instance: '{ taskLaunch: () => ({ labels: [{ key: "team", value: parameters.team }] }) }',
      }),
    );
    fs.writeFileSync(
      path.join(dir, 'sorter.js'),
      moduleSource({
        name: 'sorter',
        points: ['allocator:sorter'],
        instance: '{ sorter: () => { throw new Error("unused"); } }',
      }),
    );
    const file = modulesFile([{ use: '@acme/labels', parameters: { team: 'infra' } }, { use: './sorter.js' }], { hookTimeoutMs: 250 });
    const loaded = await load(file);
    expect(loaded.modules.map((m) => [m.name, m.use, m.points])).toEqual([
      ['labels', '@acme/labels', ['control-plane:task-launch']],
      ['sorter', './sorter.js', ['allocator:sorter']],
    ]);
    expect(loaded.sorter?.module).toBe('sorter');
    const out = await loaded.hooks.taskLaunch({
      frameworkId: 'f',
      frameworkName: 'f',
      role: 'r',
      agentId: 'a',
      task: { taskId: 't', name: 't', labels: [], environment: {}, resources: [] },
    });
    expect(out.labels).toEqual([{ key: 'team', value: 'infra' }]);
  });

  it('loads an agent module on the agent, and skips it for the allocator tools when asked', async () => {
    fs.writeFileSync(
      path.join(dir, 'env.js'),
      moduleSource({
        points: ['agent:executor-start', 'agent:container-start'],
        instance: '{ executorStart: () => undefined, containerStart: () => undefined }',
      }),
    );
    const file = modulesFile([{ use: './env.js' }]);
    expect((await load(file, 'agent')).modules).toHaveLength(1);
    expect((await loadModules(readModulesFile(file), { host: 'allocator', skipOtherHosts: true })).modules).toHaveLength(0);
  });

  it('gives the allocator a placement module loaded from a file', async () => {
    fs.writeFileSync(
      path.join(dir, 'reverse.js'),
      moduleSource({
        name: 'reverse',
        points: ['allocator:placement'],
        instance: '{ placement: () => ({ order: (agents) => [...agents].reverse() }) }',
      }),
    );
    const loaded = await load(modulesFile([{ use: './reverse.js' }]), 'allocator');
    // Two roles, one agent each: the role DRF orders first (a) gets the agent visited first.
    const offers = (options: ConstructorParameters<typeof HierarchicalAllocator>[0]) => {
      const allocator = new HierarchicalAllocator({ ...options, config: { shuffleAgents: false } });
      allocator.addFramework('fa', ['a']);
      allocator.addFramework('fb', ['b']);
      for (const id of ['agent1', 'agent2']) allocator.addAgent(id, parseResources('cpus:1;mem:512'));
      return allocator
        .allocate()
        .offers.map((o) => `${o.agentId}:${o.frameworkId}`)
        .sort();
    };
    expect(offers({})).toEqual(['agent1:fa', 'agent2:fb']);
    expect(offers({ placementFactory: loaded.placement?.factory })).toEqual(['agent1:fb', 'agent2:fa']);
  });

  it('refuses a module that cannot be found, in one sentence naming it and the file', async () => {
    const file = modulesFile([{ use: '@acme/missing' }]);
    const message = await refusal(file);
    expect(message).toMatch(
      new RegExp(`^module '@acme/missing' \\(${file}\\) could not be loaded: Cannot find module '@acme/missing'[^\\n]*\\.$`),
    );
  });

  it('refuses a module that throws while loading', async () => {
    fs.writeFileSync(path.join(dir, 'bad.js'), 'throw new Error("boom at load");');
    expect(await refusal(modulesFile([{ use: './bad.js' }]))).toBe(
      `module './bad.js' (${path.join(dir, 'modules.json')}) could not be loaded: boom at load.`,
    );
  });

  it('refuses an unknown extension point, naming the known ones', async () => {
    fs.writeFileSync(path.join(dir, 'm.js'), moduleSource({ points: ['agent:network-shaper'], instance: '{}' }));
    expect(await refusal(modulesFile([{ use: './m.js' }]))).toMatch(
      /^module '\.\/m\.js' \(.*\) declares the unknown extension point 'agent:network-shaper' \(known: control-plane:task-launch, .*\)\.$/,
    );
  });

  it('refuses a module written for another API version', async () => {
    fs.writeFileSync(path.join(dir, 'm.js'), moduleSource({ apiVersion: 99, points: ['allocator:sorter'], instance: '{}' }));
    expect(await refusal(modulesFile([{ use: './m.js' }]))).toMatch(
      /was written for module API version 99, and this Arbiter runs version 1\.$/,
    );
  });

  it("refuses another process's point, a missing implementation, a second sorter, a failing create and an export of no module", async () => {
    fs.writeFileSync(
      path.join(dir, 'agent.js'),
      moduleSource({ points: ['agent:executor-removed'], instance: '{ executorRemoved() {} }' }),
    );
    expect(await refusal(modulesFile([{ use: './agent.js' }]))).toMatch(
      /implements agent:executor-removed, which the control plane does not run \(it runs control-plane:task-launch, allocator:sorter, allocator:placement\)\.$/,
    );
    fs.writeFileSync(path.join(dir, 'empty.js'), moduleSource({ points: ['control-plane:task-launch'], instance: '{}' }));
    expect(await refusal(modulesFile([{ use: './empty.js' }]))).toMatch(
      /declares control-plane:task-launch but create\(\) returned no taskLaunch function\.$/,
    );
    fs.writeFileSync(path.join(dir, 's.js'), moduleSource({ name: 's', points: ['allocator:sorter'], instance: '{ sorter() {} }' }));
    expect(await refusal(modulesFile([{ use: './s.js' }, { use: './s.js' }]))).toMatch(
      /implements allocator:sorter, which module 's' implements already/,
    );
    fs.writeFileSync(
      path.join(dir, 'c.js'),
      moduleSource({ points: ['allocator:sorter'], instance: '(() => { throw new Error("parameter priorities is missing\\nstack"); })()' }),
    );
    expect(await refusal(modulesFile([{ use: './c.js' }]))).toMatch(/failed to start: parameter priorities is missing\.$/);
    fs.writeFileSync(path.join(dir, 'none.js'), 'exports.x = 1;');
    expect(await refusal(modulesFile([{ use: './none.js' }]))).toMatch(/exports no module: its default export must be defineModule/);
  });
});

describe('the modules file', () => {
  it('is checked field by field, each problem one sentence', () => {
    expect(() => parseModulesDocument([], 'f.json')).toThrow('f.json: must be a JSON object with a "modules" array');
    expect(() => parseModulesDocument({ modules: [], hooks: 1 }, 'f.json')).toThrow('unknown field "hooks"');
    expect(() => parseModulesDocument({ modules: [{ use: '' }] }, 'f.json')).toThrow('modules[0].use must name an npm package or a path');
    expect(() => parseModulesDocument({ modules: [], hookTimeoutMs: 0 }, 'f.json')).toThrow('"hookTimeoutMs" must be a whole number');
    expect(() => readModulesFile(path.join(dir, 'absent.json'))).toThrow(/^cannot read the modules file .*absent\.json/);
    expect(parseModulesDocument({ modules: [{ use: 'x', parameters: { a: 1 } }] }, '/etc/arbiter/modules.json')).toEqual({
      file: '/etc/arbiter/modules.json',
      baseDir: '/etc/arbiter',
      hookTimeoutMs: 5000,
      modules: [{ use: 'x', parameters: { a: 1 } }],
    });
  });
});
