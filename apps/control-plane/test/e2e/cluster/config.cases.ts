import { runControlPlaneExpectingFailure } from '../../support/process';

describe('arbiter control-plane configuration', () => {
  it.each([
    [{ PORT: 'eighty' }, [], /PORT must be a whole number from 0 to 65535 \(got 'eighty'\)/],
    [{ DATABASE_URL: 'mysql://x@y/z' }, [], /DATABASE_URL must use the postgres:\/\/ scheme/],
    [{ ARBITER_ADMIN_TOKEN: 'short' }, [], /ARBITER_ADMIN_TOKEN must be at least 16 characters/],
    [{ ARBITER_ALLOCATION_INTERVAL: '0' }, [], /ARBITER_ALLOCATION_INTERVAL must be a number of seconds from 0.05 to 3600/],
    [{ LOG_LEVEL: 'loud' }, [], /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    [{}, ['--port', '-1'], /--port \(PORT\) must be a whole number/],
  ])('stops with exit 2 and names the setting for %j %j', async (env, args, message) => {
    const r = await runControlPlaneExpectingFailure(env, args);
    expect(r.code).toBe(2);
    expect(r.output).toMatch(/^arbiter: invalid configuration:$/m);
    expect(r.output).toMatch(message);
  });

  it('never echoes a secret setting back', async () => {
    const r = await runControlPlaneExpectingFailure({ ARBITER_ADMIN_TOKEN: 'sekrit' });
    expect(r.output).not.toContain('sekrit');
  });
});
