/**
 * The modules file an operator names (`--modules FILE.json`, Mesos's `--modules`):
 *
 *   { "hookTimeoutMs": 5000,
 *     "modules": [ { "use": "@acme/arbiter-labels", "parameters": { "team": "infra" } },
 *                  { "use": "./modules/priority-sorter.js", "parameters": { "priorities": { "prod": 10 } } } ] }
 *
 * `use` is an npm package name (resolved from the file's directory, then the process's) or a
 * path (relative to the file). Modules run in the order listed. Read and checked at start; any
 * problem is one sentence naming the file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;
const MAX_HOOK_TIMEOUT_MS = 600_000;

export interface ModuleEntry {
  use: string;
  parameters: Readonly<Record<string, unknown>>;
}

export interface ModulesFile {
  /** The file's absolute path (empty when built in code). */
  file: string;
  /** Where `use` paths and packages are resolved from. */
  baseDir: string;
  /** How long one hook call may take before it counts as failed (the point's failure rule applies). */
  hookTimeoutMs: number;
  modules: readonly ModuleEntry[];
}

/** A modules file that cannot be read or is not of the format: its message is one sentence. */
export class ModulesFileError extends Error {
  override readonly name = 'ModulesFileError';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a modules document (the parsed JSON); `file` names it in messages and anchors relative paths. */
export function parseModulesDocument(document: unknown, file: string): ModulesFile {
  const where = file || 'the modules document';
  const fail = (what: string) => {
    throw new ModulesFileError(`${where}: ${what}`);
  };
  if (!isObject(document)) return fail('must be a JSON object with a "modules" array');
  const unknownKey = Object.keys(document).find((k) => k !== 'modules' && k !== 'hookTimeoutMs');
  if (unknownKey !== undefined) fail(`unknown field "${unknownKey}" (fields: modules, hookTimeoutMs)`);
  const timeout = document.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > MAX_HOOK_TIMEOUT_MS)
    fail(`"hookTimeoutMs" must be a whole number of milliseconds from 1 to ${MAX_HOOK_TIMEOUT_MS}`);
  if (!Array.isArray(document.modules)) return fail('"modules" must be an array');
  const modules = (document.modules as unknown[]).map((entry, i): ModuleEntry => {
    if (!isObject(entry)) return fail(`modules[${i}] must be an object with "use" and optional "parameters"`);
    const extra = Object.keys(entry).find((k) => k !== 'use' && k !== 'parameters');
    if (extra !== undefined) fail(`modules[${i}] has an unknown field "${extra}" (fields: use, parameters)`);
    if (typeof entry.use !== 'string' || entry.use.trim() === '') fail(`modules[${i}].use must name an npm package or a path`);
    const parameters = entry.parameters ?? {};
    if (!isObject(parameters)) fail(`modules[${i}].parameters must be an object`);
    return { use: (entry.use as string).trim(), parameters: parameters as Record<string, unknown> };
  });
  return {
    file,
    baseDir: file ? path.dirname(file) : process.cwd(),
    hookTimeoutMs: timeout as number,
    modules,
  };
}

/** Reads and checks a modules file (synchronously: configuration is read before anything starts). */
export function readModulesFile(file: string): ModulesFile {
  const absolute = path.resolve(file.trim());
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    throw new ModulesFileError(`cannot read the modules file ${absolute}: ${(err as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new ModulesFileError(`${absolute} is not JSON: ${(err as Error).message}`);
  }
  return parseModulesDocument(document, absolute);
}
