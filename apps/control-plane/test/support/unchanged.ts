import type { TestControlPlane } from './app';

/**
 * Runs a request that must be refused and checks that it changed nothing: the given reads
 * answer the same afterwards and the audit log has no new entry. Returns the response.
 */
export async function refusedWithoutChange(t: TestControlPlane, reads: string[], request: () => Promise<{ status: number; body: any }>) {
  const snapshot = async () =>
    Promise.all([...reads, '/api/v1/audit?limit=1'].map(async (r) => JSON.stringify((await t.api('GET', r)).body)));
  const before = await snapshot();
  const res = await request();
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(await snapshot()).toEqual(before);
  return res;
}
