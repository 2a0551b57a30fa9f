import { startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { refusedWithoutChange } from '../../support/unchanged';

const window = (machines: Array<Record<string, string>>, start = '2026-12-01T02:00:00Z', durationSeconds: number | null = 3600) => ({
  machines,
  unavailability: { start, durationSeconds },
});

describe('maintenance API', () => {
  let t: TestControlPlane;
  beforeAll(async () => (t = await startTestControlPlane()));
  afterAll(() => t.close());
  const reads = ['/api/v1/maintenance/schedule', '/api/v1/maintenance/status'];

  it('replaces the schedule, starts and stops maintenance, and reports modes', async () => {
    const schedule = {
      windows: [
        window([{ hostname: 'node-1' }, { hostname: 'node-2', ip: '10.0.0.2' }]),
        window([{ ip: '10.0.0.3' }], '2026-12-02T02:00:00Z', null),
      ],
    };
    const put = await ok(t.client.PUT('/api/v1/maintenance/schedule', { body: schedule }));
    expect(put.windows).toEqual([
      {
        machines: [
          { hostname: 'node-1', ip: '' },
          { hostname: 'node-2', ip: '10.0.0.2' },
        ],
        unavailability: { start: '2026-12-01T02:00:00.000Z', durationSeconds: 3600 },
      },
      { machines: [{ hostname: '', ip: '10.0.0.3' }], unavailability: { start: '2026-12-02T02:00:00.000Z', durationSeconds: null } },
    ]);
    const started = await ok(t.client.POST('/api/v1/maintenance/start', { body: { machines: [{ hostname: 'node-1' }] } }));
    expect(started.downMachines).toEqual([{ hostname: 'node-1', ip: '' }]);
    expect(started.drainingMachines.map((m) => m.machine)).toEqual([
      { hostname: '', ip: '10.0.0.3' },
      { hostname: 'node-2', ip: '10.0.0.2' },
    ]);
    // Replacing the schedule keeps a DOWN machine DOWN.
    await ok(t.client.PUT('/api/v1/maintenance/schedule', { body: { windows: [window([{ hostname: 'node-1' }])] } }));
    expect(await ok(t.client.GET('/api/v1/maintenance/status'))).toEqual({
      drainingMachines: [],
      downMachines: [{ hostname: 'node-1', ip: '' }],
    });
    const stopped = await ok(t.client.POST('/api/v1/maintenance/stop', { body: { machines: [{ hostname: 'node-1' }] } }));
    expect(stopped).toEqual({ drainingMachines: [], downMachines: [] });
    expect(await ok(t.client.GET('/api/v1/maintenance/schedule'))).toEqual({ windows: [] });
    const audit = (await ok(t.client.GET('/api/v1/audit', { params: { query: { action: 'maintenance.*' } } }))).items.map((e) => e.action);
    expect(audit).toEqual(['maintenance.stop', 'maintenance.schedule.update', 'maintenance.start', 'maintenance.schedule.update']);
  });

  describe('refusals change nothing', () => {
    beforeAll(async () => {
      await ok(
        t.client.PUT('/api/v1/maintenance/schedule', { body: { windows: [window([{ hostname: 'down-1' }, { hostname: 'draining-1' }])] } }),
      );
      await ok(t.client.POST('/api/v1/maintenance/start', { body: { machines: [{ hostname: 'down-1' }] } }));
    });

    it.each([
      [
        { windows: [window([{ hostname: 'x' }]), window([{ hostname: 'x' }])] },
        'MAINTENANCE_DUPLICATE_MACHINE',
        /x appears in window 0 and in window 1/,
      ],
      [{ windows: [window([{ hostname: 'x' }, { hostname: 'x' }])] }, 'MAINTENANCE_DUPLICATE_MACHINE', /twice/],
      [{ windows: [window([{ hostname: 'draining-1' }])] }, 'MAINTENANCE_DOWN_MACHINE_REMOVED', /down-1 is DOWN/],
      [{ windows: [window([])] }, 'VALIDATION_FAILED', /at least one machine/],
      // Found by the fuzz test (a nested list passed class-validator's ValidateNested): was a 500.
      [{ windows: [[]] }, 'VALIDATION_FAILED', /windows must be a list of objects/],
      [{ windows: [{ machines: [{ hostname: 'x' }], unavailability: [] }] }, 'VALIDATION_FAILED', /unavailability must be an object/],
      [{ windows: [window([{}])] }, 'VALIDATION_FAILED', /needs a hostname or an ip/],
      [{ windows: [window([{ ip: '999.1.1.1' }])] }, 'VALIDATION_FAILED', /not an IPv4 or IPv6 address/],
      [{ windows: [window([{ hostname: 'bad host' }])] }, 'VALIDATION_FAILED', /not a valid hostname/],
      [{ windows: [window([{ hostname: 'x' }], 'next tuesday')] }, 'VALIDATION_FAILED', /start must be an ISO 8601 date-time/],
      [{ windows: [window([{ hostname: 'x' }], undefined, -5)] }, 'VALIDATION_FAILED', /durationSeconds must not be negative/],
      [{ windows: [window([{ hostname: 'x' }], undefined, 1.5)] }, 'VALIDATION_FAILED', /whole number of seconds/],
      [{ windows: 'soon' }, 'VALIDATION_FAILED', /windows/],
      [{ windows: [], extra: 1 }, 'VALIDATION_FAILED', /property extra should not exist/],
    ])('refuses schedule %j with %s', async (body, code, message) => {
      const r = await refusedWithoutChange(t, reads, () => t.request('PUT', '/api/v1/maintenance/schedule', body));
      expect(r.body.code).toBe(code);
      expect(r.body.message).toMatch(message);
    });

    it.each([
      ['start', [{ hostname: 'nowhere' }], 'MAINTENANCE_MACHINE_NOT_SCHEDULED'],
      ['start', [{ hostname: 'down-1' }], 'MAINTENANCE_MACHINE_ALREADY_DOWN'],
      ['start', [{ hostname: 'draining-1' }, { hostname: 'nowhere' }], 'MAINTENANCE_MACHINE_NOT_SCHEDULED'],
      ['stop', [{ hostname: 'draining-1' }], 'MAINTENANCE_MACHINE_NOT_DOWN'],
      ['stop', [], 'VALIDATION_FAILED'],
    ])('refuses %s of %j with %s', async (op, machines, code) => {
      const r = await refusedWithoutChange(t, reads, () => t.request('POST', `/api/v1/maintenance/${op}`, { machines }));
      expect(r.body.code).toBe(code);
    });
  });
});
