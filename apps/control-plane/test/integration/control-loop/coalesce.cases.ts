/**
 * Concurrent identical reads share one computation (the @Coalesced routes), per principal, and
 * nothing is kept afterwards: a read that starts after the answer went out computes afresh.
 */
import { ClusterService } from '../../../src/cluster/cluster.service';
import { closeStarted, STARTUP_TIMEOUT_MS, startTestControlPlane, type TestControlPlane } from '../../support/app';

let t: TestControlPlane;
beforeAll(async () => (t = await startTestControlPlane()), STARTUP_TIMEOUT_MS);
afterAll(() => closeStarted(t), STARTUP_TIMEOUT_MS);

it('answers concurrent identical reads of one principal with one computation, and later reads afresh', async () => {
  const summary = jest.spyOn(t.cp.app.get(ClusterService), 'summary');
  const answers = await Promise.all(Array.from({ length: 20 }, () => t.request('GET', '/api/v1/cluster')));
  expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
  const concurrent = summary.mock.calls.length;
  expect(concurrent).toBeGreaterThanOrEqual(1);
  expect(concurrent).toBeLessThan(20);
  // Each computation's answer is shared by the requests it served. (On a loaded machine the
  // requests may arrive in more than one wave, and the summary names the latest allocation
  // cycle, which moves on between waves): no more distinct answers than computations.
  expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBeLessThanOrEqual(concurrent);
  // Nothing kept: the next read computes again.
  expect((await t.request('GET', '/api/v1/cluster')).status).toBe(200);
  expect(summary.mock.calls.length).toBe(concurrent + 1);
});

it('does not share a read between principals (their view ACLs may differ)', async () => {
  const created = await t.request('POST', '/api/v1/principals', { name: 'coalesce-viewer', kind: 'VIEWER' });
  expect(created.status).toBe(201);
  const token = ((await t.request('POST', '/api/v1/principals/coalesce-viewer/tokens', { name: 't' })).body as { token: string }).token;
  const summary = jest.spyOn(t.cp.app.get(ClusterService), 'summary');
  summary.mockClear();
  const [admin, viewer] = await Promise.all([
    t.request('GET', '/api/v1/cluster'),
    t.request('GET', '/api/v1/cluster', undefined, { token }),
  ]);
  expect([admin.status, viewer.status]).toEqual([200, 200]);
  expect(summary.mock.calls.length).toBe(2);
});
