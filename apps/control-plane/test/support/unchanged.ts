import type { TestControlPlane } from './app';
import { type ErrorBody, errorBody, normalise, type RawResponse } from './client';

/**
 * Runs a request that must be refused and checks that it changed nothing: the given reads
 * answer the same afterwards and the audit log has no new entry. Returns the status and the
 * API's error.
 */
export async function refusedWithoutChange(
  t: TestControlPlane,
  reads: string[],
  request: () => Promise<RawResponse | { data?: unknown; error?: unknown; response: Response }>,
): Promise<{ status: number; body: ErrorBody }> {
  const snapshot = async () =>
    Promise.all([...reads, '/api/v1/audit?limit=1'].map(async (r) => JSON.stringify((await t.request('GET', r)).body)));
  const before = await snapshot();
  const { status, body } = normalise(await request());
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
  expect(await snapshot()).toEqual(before);
  return { status, body: errorBody(body) };
}
