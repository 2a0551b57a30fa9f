import { seedAgent, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { refusedWithoutChange } from '../../support/unchanged';

describe('roles, weights and quota API', () => {
  let t: TestControlPlane;
  beforeAll(async () => {
    t = await startTestControlPlane();
    await seedAgent(t.cp, { id: 'a1', resources: 'cpus:8;mem:16384;disk:1000' });
    await seedAgent(t.cp, { id: 'a2', resources: 'cpus:8;mem:16384' });
  });
  afterAll(() => t.close());

  describe('weights', () => {
    it('updates several weights at once and lists them; roles default to 1', async () => {
      const weights = await ok(
        t.client.PUT('/api/v1/weights', {
          body: {
            weights: [
              { role: 'eng', weight: 2.5 },
              { role: 'ops/oncall', weight: 0.5 },
            ],
          },
        }),
      );
      expect(weights).toEqual([
        { role: 'eng', weight: 2.5 },
        { role: 'ops/oncall', weight: 0.5 },
      ]);
      const roles = await ok(t.client.GET('/api/v1/roles'));
      expect(roles.map((x) => [x.path, x.weight])).toEqual([
        ['eng', 2.5],
        ['ops', 1],
        ['ops/oncall', 0.5],
      ]);
      const audit = (await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'weights.update' } } }))).items;
      expect(audit.map((e) => [e.targetId, e.before, e.after])).toEqual([
        ['ops/oncall', { weight: 1 }, { weight: 0.5 }],
        ['eng', { weight: 1 }, { weight: 2.5 }],
      ]);
      // A quota on a role keeps its weight; a second change records the weight it replaced.
      await ok(t.client.PUT('/api/v1/quota', { body: { quotas: [{ role: 'eng', limits: { cpus: 10 } }], force: false } }));
      await ok(t.client.PUT('/api/v1/weights', { body: { weights: [{ role: 'eng', weight: 3 }] } }));
      const again = (await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'weights.update', limit: 1 } } }))).items;
      expect(again.map((e) => [e.targetId, e.before, e.after])).toEqual([['eng', { weight: 2.5 }, { weight: 3 }]]);
      await ok(t.client.DELETE('/api/v1/quota/{role}', { params: { path: { role: 'eng' } } }), 204);
    });

    it.each([
      [{ weights: [{ role: 'eng', weight: 0 }] }, 'VALIDATION_FAILED', /weights\.0\.weight must be a positive number/],
      [{ weights: [{ role: 'eng', weight: -1 }] }, 'VALIDATION_FAILED', /positive/],
      [{ weights: [{ role: 'eng', weight: 'heavy' }] }, 'VALIDATION_FAILED', /weights\.0\.weight must be a number/],
      [{ weights: [{ role: 'eng', weight: 1e9 }] }, 'VALIDATION_FAILED', /must not be greater than 1000000/],
      [{ weights: [{ role: '*', weight: 1 }] }, 'VALIDATION_FAILED', /weights\.0\.role must be a role path/],
      [{ weights: [{ role: 'a/../b', weight: 1 }] }, 'VALIDATION_FAILED', /role path/],
      // Roles must be writable in the resource text form, cpus(role):1.
      [{ weights: [{ role: 'a:b', weight: 1 }] }, 'VALIDATION_FAILED', /role path/],
      [{ weights: [{ role: 'a(b)', weight: 1 }] }, 'VALIDATION_FAILED', /role path/],
      [{ weights: [{ role: 'a\u0000b', weight: 1 }] }, 'VALIDATION_FAILED', /body\.weights\.0\.role must not contain the NUL character/],
      [
        {
          weights: [
            { role: 'x', weight: 3 },
            { role: 'x', weight: 4 },
          ],
        },
        'ROLE_REPEATED',
        /appears more than once/,
      ],
      [
        {
          weights: [
            { role: 'ok', weight: 3 },
            { role: 'bad role', weight: 4 },
          ],
        },
        'VALIDATION_FAILED',
        /weights\.1\.role/,
      ],
      [{ weights: [] }, 'VALIDATION_FAILED', /weights must contain at least 1 elements/],
      [{ weights: [{ role: 'eng', weight: 2, colour: 'red' }] }, 'VALIDATION_FAILED', /property colour should not exist/],
      [{}, 'VALIDATION_FAILED', /weights/],
    ])('refuses %j (%s) and changes nothing', async (body, code, message) => {
      const r = await refusedWithoutChange(t, ['/api/v1/weights'], () => t.request('PUT', '/api/v1/weights', body));
      expect(r.body.code).toBe(code);
      expect(r.body.message).toMatch(message);
    });
  });

  describe('quota', () => {
    it('sets guarantees and limits from text, objects or entries, and shows them on the role', async () => {
      // `force` is optional on the wire (false unless given), but the OpenAPI document marks it
      // required, so calls that leave it out go as raw requests.
      const r = await t.request('PUT', '/api/v1/quota', {
        quotas: [
          { role: 'eng', guarantees: 'cpus:4;mem:8192', limits: { cpus: 8, mem: 16384 } },
          { role: 'ops', guarantees: [{ name: 'cpus', value: 1 }] },
        ],
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual([
        { role: 'eng', guarantees: { cpus: 4, mem: 8192 }, limits: { cpus: 8, mem: 16384 } },
        { role: 'ops', guarantees: { cpus: 1 }, limits: {} },
      ]);
      const eng = (await ok(t.client.GET('/api/v1/roles'))).find((x) => x.path === 'eng');
      expect(eng?.quota).toEqual({ role: 'eng', guarantees: { cpus: 4, mem: 8192 }, limits: { cpus: 8, mem: 16384 } });
      expect(
        (await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'quota.update', targetId: 'eng' } } }))).items[0],
      ).toMatchObject({
        before: null,
        after: { guarantees: { cpus: 4, mem: 8192 } },
      });
    });

    it('refuses guarantees beyond capacity unless forced', async () => {
      const over = await refusedWithoutChange(t, ['/api/v1/quota'], () =>
        t.request('PUT', '/api/v1/quota', { quotas: [{ role: 'big', guarantees: 'cpus:13' }] }),
      );
      expect(over.status).toBe(409);
      expect(over.body.code).toBe('QUOTA_EXCEEDS_CAPACITY');
      expect(over.body.message).toMatch(/cpus 18 but the cluster has 16.*force=true/);
      await ok(t.client.PUT('/api/v1/quota', { body: { quotas: [{ role: 'big', guarantees: 'cpus:13' }], force: true } }));
      await ok(t.client.DELETE('/api/v1/quota/{role}', { params: { path: { role: 'big' } } }), 204);
      expect((await ok(t.client.GET('/api/v1/quota'))).map((q) => q.role)).toEqual(['eng', 'ops']);
      expect((await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'quota.remove' } } }))).items[0]).toMatchObject({
        targetId: 'big',
        after: null,
      });
    });

    it.each([
      [
        { quotas: [{ role: 'eng', guarantees: 'cpus:4', limits: 'cpus:2' }] },
        'QUOTA_GUARANTEE_EXCEEDS_LIMIT',
        /guarantee of cpus \(4\) exceeds its limit \(2\)/,
      ],
      [{ quotas: [{ role: 'eng/ml', guarantees: 'cpus:1' }] }, 'QUOTA_HIERARCHY_VIOLATION', /top-level roles/],
      [{ quotas: [{ role: 'a:b', guarantees: 'cpus:1' }] }, 'VALIDATION_FAILED', /role path/],
      [{ quotas: [{ role: 'eng', guarantees: { cpus: -1 } }] }, 'VALIDATION_FAILED', /must not be negative/],
      [{ quotas: [{ role: 'eng', guarantees: 'cpus:abc' }] }, 'VALIDATION_FAILED', /invalid scalar value 'abc'/],
      [{ quotas: [{ role: 'eng', guarantees: 'cpus:1e15' }] }, 'VALIDATION_FAILED', /beyond any cluster|invalid/],
      [{ quotas: [{ role: 'eng', guarantees: 'ports:[1-2]' }] }, 'VALIDATION_FAILED', /cannot have a quota/],
      [{ quotas: [{ role: 'eng', guarantees: 'cpus(eng):1' }] }, 'VALIDATION_FAILED', /must be unreserved/],
      [{ quotas: [{ role: 'eng', guarantees: 42 }] }, 'VALIDATION_FAILED', /guarantees/],
      [{ quotas: [{ role: 'a' }, { role: 'a' }] }, 'ROLE_REPEATED', /more than once/],
      [{ quotas: [{ role: 'eng' }], force: 'yes' }, 'VALIDATION_FAILED', /force must be true or false/],
      [
        {
          quotas: [
            { role: 'ok', guarantees: 'cpus:1' },
            { role: 'eng', guarantees: 'cpus:4', limits: 'cpus:1' },
          ],
        },
        'QUOTA_GUARANTEE_EXCEEDS_LIMIT',
        /eng/,
      ],
    ])('refuses %j (%s) and changes nothing', async (body, code, message) => {
      const r = await refusedWithoutChange(t, ['/api/v1/quota', '/api/v1/roles'], () => t.request('PUT', '/api/v1/quota', body));
      expect(r.body.code).toBe(code);
      expect(r.body.message).toMatch(message);
    });

    it('answers QUOTA_NOT_FOUND for a role without quota', async () => {
      const r = await refusedWithoutChange(t, ['/api/v1/quota'], () =>
        t.client.DELETE('/api/v1/quota/{role}', { params: { path: { role: 'nobody' } } }),
      );
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('QUOTA_NOT_FOUND');
    });
  });
});
