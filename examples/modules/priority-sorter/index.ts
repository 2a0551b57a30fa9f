/**
 * The priority-then-fair sorter as a module (docs/modules.md): roles with a higher priority
 * number are offered to first, DRF orders roles of equal priority, and every role's frameworks
 * are ordered by DRF. Parameters:
 *
 *   { "priorities": { "prod": 10, "eng": 5 } }   role path -> priority; a role without one takes
 *                                                its nearest ancestor's (eng/ci: eng's), else 0
 *
 * Name it in the control plane's modules file (`--modules`), or in `arbiter simulate` and
 * `arbiter bench allocator --modules`: they run the same allocator with it.
 */
import { defineModule, MODULE_API_VERSION, priorityThenFair } from '@arbiter/modules';

export default defineModule({
  name: 'priority-sorter',
  apiVersion: MODULE_API_VERSION,
  points: ['allocator:sorter'],
  create(parameters) {
    const priorities: unknown = parameters.priorities ?? {};
    if (typeof priorities !== 'object' || Array.isArray(priorities) || priorities === null)
      throw new Error('parameter "priorities" must be an object of role -> number');
    for (const [role, p] of Object.entries(priorities))
      if (typeof p !== 'number' || !Number.isFinite(p)) throw new Error(`parameter "priorities": role '${role}' has no number`);
    return { sorter: priorityThenFair(priorities as Record<string, number>) };
  },
});
