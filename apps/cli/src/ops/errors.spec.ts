import { CredentialsError } from '../credentials';
import { ApiError, describe as describeError, EXIT, UnreachableError, UsageError } from './errors';

describe("the CLI's errors: one sentence and an exit code", () => {
  it("names what went wrong and the API's code", () => {
    expect(describeError(new ApiError(403, 'FORBIDDEN', "principal 'v' may not drain"))).toEqual({
      line: "arbiter: forbidden (FORBIDDEN): principal 'v' may not drain",
      exitCode: EXIT.FORBIDDEN,
    });
    expect(describeError(new ApiError(404, 'AGENT_NOT_FOUND', 'no agent'))).toEqual({
      line: 'arbiter: not found (AGENT_NOT_FOUND): no agent',
      exitCode: 3,
    });
    expect(describeError(new ApiError(401, 'AUTH_TOKEN_INVALID', 'unknown token')).exitCode).toBe(4);
    expect(describeError(new ApiError(409, 'AGENT_ALREADY_DRAINING', 'already')).exitCode).toBe(1);
    expect(describeError(new ApiError(418, 'HTTP_418', 'teapot')).line).toBe('arbiter: HTTP 418 (HTTP_418): teapot');
  });

  it('keeps to one line', () => {
    expect(describeError(new ApiError(400, 'VALIDATION_FAILED', 'first\n  second')).line).toBe(
      'arbiter: invalid request (VALIDATION_FAILED): first second',
    );
  });

  it('tells usage, credentials and reachability apart', () => {
    expect(describeError(new UsageError('--limit: bad'))).toEqual({ line: 'arbiter: --limit: bad', exitCode: 2 });
    expect(describeError(new CredentialsError('no token')).exitCode).toBe(2);
    expect(describeError(new UnreachableError('unreachable: x')).exitCode).toBe(5);
    expect(describeError(new Error('anything else')).exitCode).toBe(1);
  });

  it("counts a framework's start that no control plane answered (the SDK's UNREACHABLE) as unreachable", () => {
    const sdk = Object.assign(new Error('no control plane answered within 30 s: http://127.0.0.1:1'), { code: 'UNREACHABLE' });
    expect(describeError(sdk)).toEqual({ line: 'arbiter: no control plane answered within 30 s: http://127.0.0.1:1', exitCode: 5 });
  });
});
