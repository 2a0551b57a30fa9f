import { PROTOCOL_ERRORS } from '@arbiter/contracts';
import { ProtocolError } from '../kernel/protocol-error';
import { body, callType, idOf, LOCAL_CALLS, permissionOf, READ_CALLS, secondsOf, WRITE_CALLS } from './operator-calls';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    return err instanceof ProtocolError ? err.code : 'not a ProtocolError';
  }
  return undefined;
};

describe('operator calls', () => {
  it('takes the calls it serves and refuses the others with a stable code', () => {
    for (const type of [...READ_CALLS, ...WRITE_CALLS, 'SUBSCRIBE']) expect(callType({ type })).toBe(type);
    expect(codeOf(() => callType({}))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
    expect(codeOf(() => callType({ type: 'UNKNOWN' }))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
    expect(codeOf(() => callType({ type: 99 }))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
    expect(codeOf(() => callType({ type: 'GET_EVERYTHING' }))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
    for (const type of ['GROW_VOLUME', 'SHRINK_VOLUME', 'READ_FILE', 'SET_QUOTA'])
      expect(codeOf(() => callType({ type }))).toBe(PROTOCOL_ERRORS.UNSUPPORTED);
  });

  it('needs the permission of the REST equivalent', () => {
    expect(READ_CALLS.map(permissionOf).every((p) => p === 'read')).toBe(true);
    expect(permissionOf('SUBSCRIBE')).toBe('read');
    expect(
      WRITE_CALLS.filter((t) => t !== 'SET_LOGGING_LEVEL')
        .map(permissionOf)
        .every((p) => p === 'operate'),
    ).toBe(true);
    expect(permissionOf('SET_LOGGING_LEVEL')).toBe('admin');
    // A standby answers only the calls about itself; every write but the logging level goes to the leader.
    expect(WRITE_CALLS.filter((t) => LOCAL_CALLS.has(t))).toEqual(['SET_LOGGING_LEVEL']);
  });

  it('reads the fields of a call, saying which is wrong', () => {
    expect(idOf(body({ drain_agent: { agent_id: { value: 'a1' } } }, 'DRAIN_AGENT'), 'agent_id', 'DRAIN_AGENT')).toBe('a1');
    expect(codeOf(() => body({}, 'DRAIN_AGENT'))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
    expect(codeOf(() => idOf({ agent_id: { value: '' } }, 'agent_id', 'DRAIN_AGENT'))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
    expect(secondsOf({ nanoseconds: 2.5e9 }, 'd', 'X')).toBe(2.5);
    expect(secondsOf({ seconds: 3, nanos: 5e8 }, 'd', 'X')).toBe(3.5);
    expect(codeOf(() => secondsOf({ seconds: -1 }, 'd', 'X'))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
    expect(codeOf(() => secondsOf('10s', 'd', 'X'))).toBe(PROTOCOL_ERRORS.INVALID_MESSAGE);
  });
});
