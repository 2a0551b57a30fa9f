/**
 * Loading the modules a modules file names, at start, in order: each is required (a package
 * resolved from the file's directory, else from the process's; or a path relative to the
 * file), its export checked (a name, the module API version, known points the host runs), and
 * its `create` called with its parameters. Any problem stops the start with a ModuleLoadError
 * whose message is one sentence naming the module and the file.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { ModuleCounters, type ModuleLog } from './counters';
import { HookRunner } from './hooks';
import type { ModuleEntry, ModulesFile } from './modules-file';
import { BUILTIN_MODULES } from './oversubscription';
import { guardPlacement, guardSorter } from './policies';
import {
  type ArbiterModule,
  EXTENSION_POINTS,
  type ExtensionPoint,
  HOST_POINTS,
  MODULE_API_VERSION,
  type ModuleHost,
  type ModuleInstance,
  type PlacementFactory,
  POINT_MEMBER,
} from './points';
import type { SorterFactory } from '@arbiter/allocator';

export class ModuleLoadError extends Error {
  override readonly name = 'ModuleLoadError';
}

export interface LoadedModule {
  name: string;
  /** The modules file's `use`. */
  use: string;
  points: readonly ExtensionPoint[];
  instance: ModuleInstance;
}

/** The modules a process runs, ready: hooks behind their runner, policies behind their guards. */
export class LoadedModules {
  readonly hooks: HookRunner;
  /** The allocator's sorter, when a module replaces DRF's (guarded). */
  readonly sorter?: { module: string; factory: SorterFactory };
  /** The allocator's placement, when a module replaces the configured one (guarded). */
  readonly placement?: { module: string; factory: PlacementFactory };

  constructor(
    readonly modules: readonly LoadedModule[],
    readonly counters: ModuleCounters,
    hookTimeoutMs: number,
  ) {
    this.hooks = new HookRunner(modules, hookTimeoutMs, counters);
    for (const m of modules) {
      if (m.instance.sorter) this.sorter = { module: m.name, factory: guardSorter(m.name, m.instance.sorter, counters) };
      if (m.instance.placement) this.placement = { module: m.name, factory: guardPlacement(m.name, m.instance.placement, counters) };
    }
  }

  static none(log?: ModuleLog): LoadedModules {
    return new LoadedModules([], new ModuleCounters(log), 1);
  }

  /** Each module's `close`, failures logged. */
  async close(): Promise<void> {
    for (const m of this.modules)
      try {
        await m.instance.close?.();
      } catch (err) {
        this.counters.failed(this.counters.of(m.name, m.points[0] ?? 'allocator:sorter'), err, 'closing goes on');
      }
  }
}

export interface LoadOptions {
  host: ModuleHost;
  /** Failures at run time, and what modules log through their context. */
  log?: ModuleLog;
  /**
   * Modules whose points all belong to other hosts are skipped rather than refused (`arbiter
   * simulate` and what-if read the control plane's file for its allocator policies).
   */
  skipOtherHosts?: boolean;
}

const HOST_WORDS: Record<ModuleHost, string> = { 'control-plane': 'the control plane', agent: 'an agent', allocator: 'the allocator' };

/** Points at most one module implements. */
const SINGLE: readonly ExtensionPoint[] = ['allocator:sorter', 'allocator:placement', 'agent:resource-estimator', 'agent:qos-controller'];

function requireModule(entry: ModuleEntry, baseDir: string): unknown {
  if (Object.hasOwn(BUILTIN_MODULES, entry.use)) return BUILTIN_MODULES[entry.use];
  const isPath = entry.use.startsWith('.') || path.isAbsolute(entry.use);
  const target = isPath ? path.resolve(baseDir, entry.use) : entry.use;
  const bases = isPath ? [baseDir] : [baseDir, process.cwd()];
  let last: unknown;
  for (const base of bases) {
    try {
      return createRequire(path.join(base, 'modules.json'))(target);
    } catch (err) {
      last = err;
      // Another base only when the module itself was not found (not when it failed while loading).
      if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !(err as Error).message.includes(target)) break;
    }
  }
  throw last;
}

/** The first line of an error's message: messages here stay one sentence. */
const firstLine = (err: unknown) =>
  (err instanceof Error ? err.message : String(err))
    .split('\n')[0]
    .replace(/^Error: /, '')
    .replace(/[.\s]+$/, '');

function definitionOf(exported: unknown): Partial<ArbiterModule> | undefined {
  const candidates = [exported, (exported as { default?: unknown } | null)?.default, (exported as { module?: unknown } | null)?.module];
  for (const c of candidates) if (typeof c === 'object' && c !== null && 'create' in c) return c as Partial<ArbiterModule>;
  return undefined;
}

export async function loadModules(file: ModulesFile | undefined, options: LoadOptions): Promise<LoadedModules> {
  const counters = new ModuleCounters(options.log);
  if (!file) return new LoadedModules([], counters, 1);
  const where = file.file ? ` (${file.file})` : '';
  const runs = HOST_POINTS[options.host];
  const loaded: LoadedModule[] = [];
  const taken = new Map<ExtensionPoint, string>();
  for (const entry of file.modules) {
    const fail = (what: string): never => {
      throw new ModuleLoadError(`module '${entry.use}'${where} ${what}.`);
    };
    let exported: unknown;
    try {
      exported = requireModule(entry, file.baseDir);
    } catch (err) {
      fail(`could not be loaded: ${firstLine(err)}`);
    }
    const def = definitionOf(exported);
    if (!def || typeof def.create !== 'function')
      return fail('exports no module: its default export must be defineModule({ name, apiVersion, points, create })');
    const name = def.name;
    if (typeof name !== 'string' || name === '') return fail('has no name');
    if (def.apiVersion !== MODULE_API_VERSION)
      fail(`was written for module API version ${String(def.apiVersion)}, and this Arbiter runs version ${MODULE_API_VERSION}`);
    if (!Array.isArray(def.points) || def.points.length === 0) fail('declares no extension point');
    const points = def.points as readonly string[];
    const unknown = points.find((p) => !(EXTENSION_POINTS as readonly string[]).includes(p));
    if (unknown !== undefined) fail(`declares the unknown extension point '${unknown}' (known: ${EXTENSION_POINTS.join(', ')})`);
    const known = points as readonly ExtensionPoint[];
    const foreign = known.filter((p) => !runs.includes(p));
    if (foreign.length === known.length && options.skipOtherHosts) continue;
    if (foreign.length)
      fail(`implements ${foreign.join(', ')}, which ${HOST_WORDS[options.host]} does not run (it runs ${runs.join(', ')})`);
    for (const p of known) {
      if (!SINGLE.includes(p)) continue;
      const other = taken.get(p);
      if (other !== undefined) fail(`implements ${p}, which module '${other}' implements already (one module for it)`);
      taken.set(p, name);
    }
    let instance: ModuleInstance;
    try {
      const log = options.log ?? (() => undefined);
      instance = await def.create(entry.parameters, {
        host: options.host,
        baseDir: file.baseDir,
        log: (message, fields) => log(message, { module: name, ...fields }),
      });
    } catch (err) {
      return fail(`failed to start: ${firstLine(err)}`);
    }
    const made: unknown = instance;
    if (typeof made !== 'object' || made === null) return fail('create() returned no object');
    for (const p of known)
      if (p === 'agent:isolator' ? typeof instance.isolator !== 'object' : typeof instance[POINT_MEMBER[p]] !== 'function')
        fail(`declares ${p} but create() returned no ${POINT_MEMBER[p]} ${p === 'agent:isolator' ? 'object' : 'function'}`);
    // Only what it declared is used.
    const declared: ModuleInstance = {};
    for (const p of known) Object.assign(declared, { [POINT_MEMBER[p]]: instance[POINT_MEMBER[p]] });
    if (instance.close) declared.close = () => instance.close?.();
    loaded.push({ name, use: entry.use, points: known, instance: declared });
  }
  return new LoadedModules(loaded, counters, file.hookTimeoutMs);
}
