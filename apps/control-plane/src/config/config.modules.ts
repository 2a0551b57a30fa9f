/**
 * Modules in the control plane's configuration: `--modules FILE.json` (ARBITER_MODULES), read
 * and checked with the rest of the configuration; the modules themselves are loaded at start
 * (server.ts), before the database is touched, and provided under LOADED_MODULES.
 */
import { type ModulesFile, readModulesFile } from '@arbiter/modules';
import { z } from 'zod';

/** The injection token of the control plane's LoadedModules. */
export const LOADED_MODULES = Symbol('LOADED_MODULES');

/** The modules file's path: read and checked (its format; loading the modules is start's). */
export const modulesFile = z.string().transform((raw, ctx): ModulesFile => {
  try {
    return readModulesFile(raw);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});
