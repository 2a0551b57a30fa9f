/**
 * Reservation refinement and operation feedback over the SDK's protocol, against a real control
 * plane and database: RESERVE with a source (allowed with RESERVATION_REFINEMENT, refused without
 * it and by the reserve_resources ACL), UNRESERVE popping the refined layer only, the REST
 * reservations' refinement; operation statuses (finished, refused), acknowledged, reconciled, and
 * sent again after a control-plane restart until acknowledged.
 */
import { Resources } from '@arbiter/allocator';
import { type Offer, type OperationStatus, Scheduler, type Subscribe } from '@arbiter/scheduler-sdk';
import { Kernel } from '../../../src/kernel/kernel';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ok } from '../../support/client';
import { ProtocolAgent } from '../../support/fake-agent';
import { freshDatabase } from '../../support/postgres';
import { Recorder } from '../../support/recorder';
import { defined, until } from '../../support/until';

/** A recorder that also keeps operation statuses. */
class FeedbackRecorder extends Recorder {
  readonly statuses: OperationStatus[] = [];
  constructor(t: TestControlPlane, framework: Subscribe, options: { autoAcknowledge?: boolean; token?: string } = {}) {
    super(t, framework, options);
    this.s.on('operationStatus', (st) => this.statuses.push(st));
  }
  async status(operationId: string, state?: string): Promise<OperationStatus> {
    await until(
      () => this.statuses.some((s) => s.operationId === operationId && (!state || s.state === state)),
      `status of ${operationId}`,
    );
    return defined(this.statuses.find((s) => s.operationId === operationId && (!state || s.state === state)));
  }
}

const reservedFor = (o: Offer, role: string) => Resources.of(o.resources).reserved(role);

describe('reservation refinement and operation feedback', () => {
  let t: TestControlPlane;
  const closers: Array<() => void> = [];
  const agent = async (plane: TestControlPlane, hostname: string, resources: Record<string, number>) => {
    const a = new ProtocolAgent(plane.cp.url, ADMIN_TOKEN, { hostname, resources: Resources.fromScalars(resources).toJSON() });
    closers.push(() => a.close());
    return { a, agentId: await a.register() };
  };
  const framework = async (
    plane: TestControlPlane,
    f: Subscribe,
    options: { autoAcknowledge?: boolean; token?: string } = {},
  ): Promise<FeedbackRecorder> => {
    const r = new FeedbackRecorder(plane, f, options);
    closers.push(() => r.s.close());
    await r.s.start();
    return r;
  };
  const reservations = () => ok(t.client.GET('/api/v1/reservations')).then((p) => p.items);
  /** An offer holding resources reserved for `role`. */
  const offerReservedFor = async (f: FeedbackRecorder, role: string) => {
    await until(() => f.offers.some((o) => !reservedFor(o, role).isEmpty()), `an offer reserved for ${role}`);
    const offer = defined(f.offers.find((o) => !reservedFor(o, role).isEmpty()));
    f.offers.splice(f.offers.indexOf(offer), 1);
    return offer;
  };

  beforeEach(async () => (t = await startTestControlPlane({ config: { allocationInterval: 0.1 } })));
  afterEach(async () => {
    for (const c of closers.splice(0)) c();
    await t.close();
  });

  it('refines eng to eng/ml for a RESERVATION_REFINEMENT framework, and UNRESERVE pops the refined layer only', async () => {
    const { agentId } = await agent(t, 'refine-host', { cpus: 4, mem: 4096 });
    await ok(t.client.POST('/api/v1/reservations', { body: { agentId, role: 'eng', resources: 'cpus:2;mem:1024' } }), 201);
    const f = await framework(t, { name: 'ml', roles: ['eng/ml'], capabilities: ['RESERVATION_REFINEMENT'] });
    const offer = await offerReservedFor(f, 'eng');
    const source = reservedFor(offer, 'eng');
    expect(source.toString()).toBe('cpus(eng):2;mem(eng):1024');
    await f.s.accept(
      [offer.id],
      [{ type: 'RESERVE', id: 'refine-1', source: source.toJSON(), resources: source.withReservation('eng/ml').toJSON() }],
    );

    const finished = await f.status('refine-1');
    expect(finished).toMatchObject({ state: 'OPERATION_FINISHED', agentId });
    expect(finished.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Resources.of(defined(finished.convertedResources)).toString()).toBe('cpus(eng/ml):2;mem(eng/ml):1024');
    expect(await reservations()).toEqual([
      expect.objectContaining({
        role: 'eng/ml',
        resourcesText: 'cpus(eng/ml):2;mem(eng/ml):1024',
        refines: [{ role: 'eng', principal: 'admin' }],
      }),
    ]);

    // Offered back refined; unreserving pops eng/ml and leaves eng's reservation.
    const refined = await offerReservedFor(f, 'eng/ml');
    await f.s.accept([refined.id], [{ type: 'UNRESERVE', id: 'pop-1', resources: reservedFor(refined, 'eng/ml').toJSON() }]);
    expect(await f.status('pop-1')).toMatchObject({ state: 'OPERATION_FINISHED' });
    expect(await reservations()).toEqual([
      expect.objectContaining({ role: 'eng', resourcesText: 'cpus(eng):2;mem(eng):1024', principal: 'admin', refines: [] }),
    ]);
  });

  it('refuses a refinement without the capability, of a role that is no descendant, and by the reserve_resources ACL: OPERATION_ERROR, nothing changed', async () => {
    const { agentId } = await agent(t, 'refuse-host', { cpus: 4, mem: 4096 });
    await ok(t.client.POST('/api/v1/reservations', { body: { agentId, role: 'eng', resources: 'cpus:2' } }), 201);
    const before = await reservations();

    const plain = await framework(t, { name: 'plain', roles: ['eng/ml'] });
    const offer = await offerReservedFor(plain, 'eng');
    const source = reservedFor(offer, 'eng');
    const refine = {
      type: 'RESERVE' as const,
      id: 'no-cap',
      source: source.toJSON(),
      resources: source.withReservation('eng/ml').toJSON(),
    };
    const noCapability = await plain.s.accept([offer.id], [refine]).then(
      () => undefined,
      (err: unknown) => err as { code: string; message: string },
    );
    expect(noCapability?.code).toBe('INVALID_MESSAGE');
    expect(noCapability?.message).toContain('RESERVATION_REFINEMENT');
    const error = await plain.status('no-cap');
    expect(error).toMatchObject({ state: 'OPERATION_ERROR' });
    expect(error.uuid).toBeUndefined();
    plain.s.close();

    // A principal whose reserve_resources ACL leaves out eng/ml.
    const token = await t.principal('ml-fw', 'FRAMEWORK');
    const acls = await t.request('PUT', '/api/v1/acls', {
      permissive: true,
      reserve_resources: [{ principals: { values: ['ml-fw'] }, roles: { type: 'NONE' } }],
    });
    expect(acls.status).toBe(200);
    const denied = await framework(t, { name: 'denied', roles: ['eng/ml'], capabilities: ['RESERVATION_REFINEMENT'] }, { token });
    const offer2 = await offerReservedFor(denied, 'eng');
    await expect(denied.s.accept([offer2.id], [{ ...refine, id: 'acl' }])).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await denied.status('acl')).toMatchObject({ state: 'OPERATION_ERROR' });
    expect(await reservations()).toEqual(before);
    // Nothing kept for either: reconciliation does not know them.
    await denied.s.reconcileOperations([{ operationId: 'acl', agentId }]);
    expect(await denied.status('acl', 'OPERATION_UNKNOWN')).toMatchObject({ agentId });
  });

  it('refines through the REST API, and removing the refined reservation gives it back to the role below', async () => {
    const { agentId } = await agent(t, 'rest-host', { cpus: 4, mem: 4096 });
    await ok(t.client.POST('/api/v1/reservations', { body: { agentId, role: 'eng', resources: 'cpus:3' } }), 201);
    const refined = await ok(
      t.client.POST('/api/v1/reservations', { body: { agentId, role: 'eng/ml', refines: 'eng', resources: 'cpus:2' } }),
      201,
    );
    expect(refined).toMatchObject({ role: 'eng/ml', resourcesText: 'cpus(eng/ml):2', refines: [{ role: 'eng', principal: 'admin' }] });
    expect((await reservations()).map((r) => r.resourcesText).sort()).toEqual(['cpus(eng):1', 'cpus(eng/ml):2']);
    // Not an ancestor: refused, nothing changed.
    const bad = await t.request('POST', '/api/v1/reservations', { agentId, role: 'ops', refines: 'eng', resources: 'cpus:1' });
    expect(bad.status).toBe(400);
    expect((bad.body as { code: string }).code).toBe('VALIDATION_FAILED');
    // More than eng holds: refused.
    const tooMuch = await t.request('POST', '/api/v1/reservations', { agentId, role: 'eng/x', refines: 'eng', resources: 'cpus:2' });
    expect(tooMuch.status).toBe(409);
    await ok(t.client.DELETE('/api/v1/reservations/{id}', { params: { path: { id: refined.id } } }), 204);
    expect((await reservations()).map((r) => r.resourcesText).sort()).toEqual(['cpus(eng):1', 'cpus(eng):2']);
  });

  it('keeps a finished status until acknowledged: reconciled without a uuid, unknown once acknowledged; an id in use is refused', async () => {
    await agent(t, 'ack-host', { cpus: 4, mem: 4096 });
    const f = await framework(t, { name: 'acker', roles: ['team'] }, { autoAcknowledge: false });
    const offer = await f.nextOffer();
    await f.s.accept([offer.id], [{ type: 'RESERVE', id: 'r1', resources: Resources.fromScalars({ cpus: 1 }).toJSON() }]);
    const finished = await f.status('r1');
    expect(finished.uuid).toEqual(expect.any(String));

    // An id whose status is not acknowledged cannot be used again.
    const next = await offerReservedFor(f, 'team');
    await expect(
      f.s.accept([next.id], [{ type: 'UNRESERVE', id: 'r1', resources: reservedFor(next, 'team').toJSON() }]),
    ).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });

    // Another principal's framework cannot acknowledge it (its calls reach its own statuses only).
    const otherToken = await t.principal('other-fw', 'FRAMEWORK');
    const other = await framework(t, { name: 'other', roles: ['elsewhere'] }, { token: otherToken, autoAcknowledge: false });
    await other.s.acknowledgeOperationStatus(finished);
    await other.s.reconcileOperations();
    await other.s.reconcileOperations([{ operationId: 'r1' }]);
    expect(await other.status('r1')).toMatchObject({ state: 'OPERATION_UNKNOWN' });

    f.statuses.length = 0;
    await f.s.reconcileOperations();
    const implicit = await f.status('r1');
    expect(implicit).toMatchObject({ state: 'OPERATION_FINISHED' });
    expect(implicit.uuid).toBeUndefined();

    await f.s.acknowledgeOperationStatus(finished);
    f.statuses.length = 0;
    await f.s.reconcileOperations([{ operationId: 'r1' }]);
    expect(await f.status('r1')).toMatchObject({ state: 'OPERATION_UNKNOWN' });
  });

  it("forgets a framework's statuses when it is torn down", async () => {
    await agent(t, 'teardown-host', { cpus: 4, mem: 4096 });
    const f = await framework(t, { name: 'leaver', roles: ['team'] }, { autoAcknowledge: false });
    await f.s.accept([(await f.nextOffer()).id], [{ type: 'RESERVE', id: 'gone', resources: Resources.fromScalars({ cpus: 1 }).toJSON() }]);
    await f.status('gone');
    const kept = () =>
      t.cp.dataSource.query<Array<{ n: string }>>('SELECT count(*) AS n FROM operation_statuses').then((r) => Number(r[0].n));
    expect(await kept()).toBe(1);
    await f.s.teardown();
    await until(async () => (await kept()) === 0, 'the statuses forgotten');
  });

  it('sends an unacknowledged status again after a control-plane restart, until acknowledged', async () => {
    const db = await freshDatabase();
    const first = await startTestControlPlane({ databaseUrl: db.url, config: { allocationInterval: 0.1 } });
    let second: TestControlPlane | undefined;
    try {
      const { a } = await agent(first, 'failover-host', { cpus: 4, mem: 4096 });
      const info = { name: 'survivor', roles: ['team'], failoverTimeoutSeconds: 3600 };
      const f = await framework(first, info, { autoAcknowledge: false });
      const offer = await f.nextOffer();
      await f.s.accept([offer.id], [{ type: 'RESERVE', id: 'kept', resources: Resources.fromScalars({ cpus: 1 }).toJSON() }]);
      const sent = await f.status('kept');
      await first.cp.app.get(Kernel).settled();
      f.s.close();
      a.close();
      await first.stop();

      second = await startTestControlPlane({ databaseUrl: db.url, config: { allocationInterval: 0.1 } });
      const back = await framework(second, { ...info, frameworkId: defined(f.s.frameworkId) });
      const again = await back.status('kept');
      expect(again).toMatchObject({ state: 'OPERATION_FINISHED', uuid: sent.uuid });
      // autoAcknowledge acknowledged it: a new subscription hears nothing more of it.
      await until(async () => {
        back.statuses.length = 0;
        await back.s.reconcileOperations();
        await back.s.reconcileOperations([{ operationId: 'kept' }]);
        return back.statuses.some((s) => s.state === 'OPERATION_UNKNOWN');
      }, 'the status forgotten once acknowledged');
    } finally {
      await second?.stop();
      await db.drop();
    }
  });
});

describe('operation feedback across a leader change', () => {
  it('the new leader sends the unacknowledged status again to the framework, which follows it', async () => {
    const db = await freshDatabase();
    const config = { allocationInterval: 0.1, leaderLease: 30 };
    const first = await startTestControlPlane({ databaseUrl: db.url, config });
    const second = await startTestControlPlane({ databaseUrl: db.url, config });
    const node = new ProtocolAgent(first.cp.url, ADMIN_TOKEN, {
      hostname: 'ha-host',
      resources: Resources.fromScalars({ cpus: 4, mem: 4096 }).toJSON(),
    });
    const s = new Scheduler({
      master: `${first.cp.url},${second.cp.url}`,
      token: ADMIN_TOKEN,
      framework: { name: 'ha', roles: ['team'], failoverTimeoutSeconds: 3600 },
      autoAcknowledge: false,
    });
    try {
      await node.register();
      const offers: Offer[] = [];
      const statuses: OperationStatus[] = [];
      s.on('offers', (o) => offers.push(...o));
      s.on('operationStatus', (st) => statuses.push(st));
      await s.start();
      await until(() => offers.length > 0, 'an offer');
      await s.accept([offers[0].id], [{ type: 'RESERVE', id: 'ha-1', resources: Resources.fromScalars({ cpus: 1 }).toJSON() }]);
      await until(() => statuses.length === 1, 'the status');
      const [sent] = statuses;
      expect(sent).toMatchObject({ operationId: 'ha-1', state: 'OPERATION_FINISHED' });
      await first.cp.app.get(Kernel).settled();
      node.close();
      await first.stop();
      // The standby takes over; the framework finds it and subscribes again: the status comes again.
      await until(() => statuses.length >= 2, 60_000, 'the status from the new leader');
      expect(statuses[1]).toEqual(sent);
      await s.acknowledgeOperationStatus(sent);
      await s.reconcileOperations([{ operationId: 'ha-1' }]);
      await until(() => statuses.some((st) => st.state === 'OPERATION_UNKNOWN'), 'forgotten once acknowledged');
    } finally {
      s.close();
      node.close();
      await second.stop();
      await db.drop();
    }
  }, 120_000);
});
