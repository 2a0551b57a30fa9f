import { leftSilent, MasterUrls, refusalOf, socketClientOptions } from './masters';

describe('socket client options', () => {
  it('connect within 3 s by default, reconnect forever at most 2 s apart, over websocket only', () => {
    expect(socketClientOptions({ token: 't' })).toEqual({
      auth: { token: 't' },
      autoConnect: false,
      reconnection: true,
      reconnectionDelay: 250,
      reconnectionDelayMax: 2_000,
      timeout: 3_000,
      transports: ['websocket'],
      forceNew: true,
    });
    expect(socketClientOptions({ token: 't', connectTimeoutMs: 500, ca: ['PEM'] })).toMatchObject({ timeout: 500, ca: ['PEM'] });
  });

  it('refuse a connect timeout that is not a positive number', () => {
    for (const bad of [0, -1, Number.NaN, Infinity])
      expect(() => socketClientOptions({ token: 't', connectTimeoutMs: bad })).toThrow('connect timeout must be a positive number');
  });
});

describe('leftSilent', () => {
  const socketAt = (url: string) => ({ io: { uri: url } });

  it('sends the next reconnection to the next URL when the control plane stopped answering (ping timeout)', () => {
    const masters = new MasterUrls('http://a:1,http://b:2,http://c:3');
    const socket = socketAt('http://a:1/agents');
    leftSilent(socket, '/agents', masters, 'ping timeout');
    expect(socket.io.uri).toBe('http://b:2/agents');
    expect(masters.current).toBe('http://b:2');
  });

  it('keeps the URL for other disconnections, and with a single URL', () => {
    const masters = new MasterUrls('http://a:1,http://b:2');
    const socket = socketAt('http://a:1/agents');
    for (const reason of ['transport close', 'io server disconnect', 'io client disconnect'])
      leftSilent(socket, '/agents', masters, reason);
    expect(socket.io.uri).toBe('http://a:1/agents');
    const single = new MasterUrls('http://a:1');
    leftSilent(socket, '/agents', single, 'ping timeout');
    expect(socket.io.uri).toBe('http://a:1/agents');
  });
});

describe('refusalOf', () => {
  it('names the leader a standby named, null for any other refusal (retried by the client), undefined when nothing answered', () => {
    expect(refusalOf({ data: { code: 'NOT_LEADER', leader: 'http://b:2' } })).toBe('http://b:2');
    expect(refusalOf({ data: { code: 'NOT_LEADER', leader: null } })).toBeNull();
    expect(refusalOf({ data: { code: 'DATABASE_UNAVAILABLE' } })).toBeNull();
    expect(refusalOf({})).toBeUndefined();
    expect(refusalOf({ data: 'websocket error' })).toBeUndefined();
  });
});
