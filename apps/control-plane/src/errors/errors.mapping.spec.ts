import { ERROR_CODES } from '@arbiter/contracts';
import { allErrorCodes, assertErrorCodesRegistered, httpStatusOf, unregisteredErrorCodes } from './errors.mapping';

/** errors.mapping as a process that has loaded only the modules `load` imports. */
function isolated(load: () => void = () => undefined): typeof import('./errors.mapping') {
  let mapping: typeof import('./errors.mapping') | undefined;
  jest.isolateModules(() => {
    load();
    mapping = jest.requireActual<typeof import('./errors.mapping')>('./errors.mapping');
  });
  if (!mapping) throw new Error('errors.mapping did not load');
  return mapping;
}

describe('error codes', () => {
  it('every REST code of the registry is registered by a module once the application is loaded', () => {
    jest.requireActual('../app.module');
    expect(unregisteredErrorCodes()).toEqual([]);
    expect(() => assertErrorCodesRegistered()).not.toThrow();
    expect(allErrorCodes().map((c) => c.code)).toEqual(
      Object.keys(ERROR_CODES).filter((code) => ERROR_CODES[code as keyof typeof ERROR_CODES].status !== null),
    );
    expect(httpStatusOf('AGENT_NOT_FOUND')).toBe(404);
    expect(httpStatusOf('NO_LEADER')).toBe(503);
  });

  it('building the application fails, naming the codes, when a REST code of the registry belongs to no module', () => {
    const mapping = isolated(() => jest.requireActual('./errors.codes'));
    expect(mapping.unregisteredErrorCodes()).toContain('AGENT_NOT_FOUND');
    expect(mapping.unregisteredErrorCodes()).not.toContain('VALIDATION_FAILED');
    expect(() => mapping.assertErrorCodesRegistered()).toThrow(
      /ERROR_CODES \(libs\/contracts\/src\/errors\.ts\) gives .*AGENT_NOT_FOUND.* an HTTP status, but no module registers them/,
    );
  });

  it('a code is registered by one module only', () => {
    const mapping = isolated();
    mapping.registerErrorCodes('agents', { AGENT_GONE: 'AGENT_GONE' });
    expect(() => mapping.registerErrorCodes('agents', { AGENT_GONE: 'AGENT_GONE' })).not.toThrow();
    expect(() => mapping.registerErrorCodes('reservations', { AGENT_GONE: 'AGENT_GONE' })).toThrow(
      'error code AGENT_GONE is registered by both agents and reservations',
    );
  });

  // The type checker (`npm test`'s first step) holds the two lines marked @ts-expect-error to failing.
  it('a code without an HTTP status in the registry does not compile', () => {
    const mapping = isolated();
    // @ts-expect-error: not in ERROR_CODES
    mapping.registerErrorCodes('tasks', { TASK_EXPLODED: 'TASK_EXPLODED' });
    // @ts-expect-error: in ERROR_CODES, for the socket protocols only (no HTTP status)
    mapping.registerErrorCodes('offers', { UNKNOWN_OFFER: 'UNKNOWN_OFFER' });
    expect('TASK_EXPLODED' in ERROR_CODES).toBe(false);
    expect(ERROR_CODES.UNKNOWN_OFFER.status).toBeNull();
  });
});
