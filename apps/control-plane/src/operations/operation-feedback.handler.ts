/**
 * Operation feedback, one mechanism for every offer operation a framework names with an id
 * (Mesos's `Offer.Operation.id`): RESERVE, UNRESERVE, CREATE and DESTROY, any other the same way.
 *
 * - An operation applied: `record` keeps its status (OPERATION_FINISHED, with a uuid) in the
 *   transaction that applies it, `deliver` sends it once that transaction committed. It is sent
 *   again on each subscription of the framework (`resync`), on any replica after a failover,
 *   until the framework acknowledges it (`acknowledge`), which forgets it.
 * - An operation refused before it was applied: `refused` sends OPERATION_ERROR without a uuid
 *   (nothing to acknowledge, nothing kept), as a Mesos master drops an invalid operation.
 * - `reconcile`: the latest status of each operation asked for (without a uuid), or of every
 *   operation kept when none is named; an operation not kept is OPERATION_UNKNOWN (its agent
 *   known but disconnected: OPERATION_UNREACHABLE), as Mesos's master answers.
 *
 * An operation gets feedback with an optional `id` in its contract schema and, in its accept
 * handler, `named` before it applies, `record` in its transaction, `deliver` after, `refused` on
 * a refusal (offers/reservation-accepts.handler.ts and volume-accepts.handler.ts do so).
 */
import { randomUUID } from 'node:crypto';
import {
  type AcknowledgeOperationStatus,
  type Operation,
  type OperationState,
  type OperationStatus,
  PROTOCOL_ERRORS,
  type ReconcileOperations,
  type ResourceEntry,
} from '@arbiter/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Database, type Tx } from '../database/database.service';
import { CLOCK, type Clock } from '../kernel/clock';
import { asProtocolError, ProtocolError } from '../kernel/protocol-error';
import { ClusterState, type FrameworkConnection } from '../master/cluster-state';
import { Outbox } from '../master/outbox';
import type { OperationStatusEntity } from './operation-status.entity';
import { OperationStatusesRepository } from './operation-statuses.repository';

/** An operation of an accept that carries an id. */
export interface NamedOperation {
  operationId: string;
  type: string;
}

/** What an applied operation reports. */
export interface AppliedOperation extends NamedOperation {
  agentId: string;
  state?: OperationState;
  message?: string;
  convertedResources?: ResourceEntry[];
}

const toStatus = (row: OperationStatusEntity, reliable: boolean): OperationStatus => ({
  operationId: row.operationId,
  state: row.state as OperationState,
  ...(row.message !== null ? { message: row.message } : {}),
  ...(row.agentId !== null ? { agentId: row.agentId } : {}),
  ...(reliable ? { uuid: row.uuid } : {}),
  ...(row.convertedResources ? { convertedResources: row.convertedResources } : {}),
});

@Injectable()
export class OperationFeedback {
  private readonly logger = new Logger('OperationFeedback');

  constructor(
    private readonly db: Database,
    private readonly repo: OperationStatusesRepository,
    private readonly state: ClusterState,
    private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The operations of an accept that carry an id. An id twice in the accept, or already used by
   * an operation of the framework whose status is not acknowledged, is INVALID_MESSAGE.
   */
  async named(frameworkId: string, operations: readonly Operation[]): Promise<NamedOperation[]> {
    const named = operations.flatMap((op) => ('id' in op && op.id !== undefined ? [{ operationId: op.id, type: op.type }] : []));
    if (!named.length) return named;
    const ids = named.map((n) => n.operationId);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined)
      throw new ProtocolError(PROTOCOL_ERRORS.INVALID_MESSAGE, `operation id '${twice}' appears twice in this accept`);
    const kept = await this.repo.ofFramework(this.db.manager, frameworkId, ids);
    if (kept.length)
      throw new ProtocolError(
        PROTOCOL_ERRORS.INVALID_MESSAGE,
        `operation id '${kept[0].operationId}' is in use by an operation whose status is not acknowledged yet`,
      );
    return named;
  }

  /**
   * Runs an accept's operations under feedback: its named operations are checked first (`named`),
   * then `apply` gets them; a refusal (not a database outage, which the framework retries) sends
   * OPERATION_ERROR for each of them and is thrown on.
   */
  async applying<T>(frameworkId: string, operations: readonly Operation[], apply: (named: NamedOperation[]) => Promise<T>): Promise<T> {
    const named = await this.named(frameworkId, operations);
    try {
      return await apply(named);
    } catch (err) {
      const refusal = asProtocolError(err);
      if (refusal && refusal.code !== PROTOCOL_ERRORS.DATABASE_UNAVAILABLE) this.refused(frameworkId, named, refusal.message);
      throw err;
    }
  }

  /** Keeps, in the transaction that applies them, the statuses of applied operations; `deliver` sends them after it. */
  async record(tx: Tx, frameworkId: string, applied: readonly AppliedOperation[]): Promise<OperationStatus[]> {
    const at = this.clock.date();
    const rows: OperationStatusEntity[] = applied.map((op) => ({
      uuid: randomUUID(),
      frameworkId,
      operationId: op.operationId,
      type: op.type,
      agentId: op.agentId,
      state: op.state ?? 'OPERATION_FINISHED',
      message: op.message ?? null,
      convertedResources: op.convertedResources ?? null,
      at,
    }));
    await this.repo.insert(tx, rows);
    return rows.map((r) => toStatus(r, true));
  }

  deliver(frameworkId: string, statuses: readonly OperationStatus[]): void {
    for (const status of statuses) this.outbox.operationStatus(frameworkId, status);
  }

  /** Operations refused before they were applied: OPERATION_ERROR each, nothing to acknowledge. */
  refused(frameworkId: string, named: readonly NamedOperation[], message: string, agentId?: string): void {
    for (const op of named)
      this.outbox.operationStatus(frameworkId, {
        operationId: op.operationId,
        state: 'OPERATION_ERROR',
        message,
        ...(agentId !== undefined ? { agentId } : {}),
      });
  }

  /** Forgets an acknowledged status (a uuid that is not kept, acknowledged already, is ignored, as Mesos does). */
  async acknowledge(socket: FrameworkConnection, msg: AcknowledgeOperationStatus): Promise<void> {
    const fw = this.state.frameworkOf(socket);
    const forgot = await this.repo.acknowledge(this.db.manager, fw.id, msg.operationId, msg.uuid);
    if (!forgot) this.logger.debug({ frameworkId: fw.id, operationId: msg.operationId }, 'acknowledgement of an operation status not kept');
  }

  async reconcile(socket: FrameworkConnection, msg: ReconcileOperations): Promise<void> {
    const fw = this.state.frameworkOf(socket);
    const asked = msg.operations ?? [];
    const rows = await this.repo.ofFramework(this.db.manager, fw.id, asked.length ? asked.map((o) => o.operationId) : undefined);
    const kept = new Map(rows.map((r) => [r.operationId, r]));
    const answers: OperationStatus[] = asked.length
      ? asked.map(({ operationId, agentId }) => {
          const row = kept.get(operationId);
          if (row) return toStatus(row, false);
          const agent = agentId !== undefined ? this.state.agents.get(agentId) : undefined;
          return {
            operationId,
            state: agent && !agent.socket ? 'OPERATION_UNREACHABLE' : 'OPERATION_UNKNOWN',
            message: agent && !agent.socket ? 'Reconciliation: Agent is unreachable' : 'Reconciliation: Operation is unknown',
            ...(agentId !== undefined ? { agentId } : {}),
          };
        })
      : rows.map((r) => toStatus(r, false));
    for (const status of answers) this.outbox.operationStatus(fw.id, status);
  }

  /** A framework removed: its statuses go with it (in the transaction that completes it). */
  forget(tx: Tx, frameworkId: string): Promise<void> {
    return this.repo.forgetFramework(tx, frameworkId);
  }

  /** After a (re-)subscription: the statuses not acknowledged go out again, oldest first. */
  async resync(frameworkId: string): Promise<void> {
    try {
      const rows = await this.repo.ofFramework(this.db.manager, frameworkId);
      for (const row of rows) this.outbox.operationStatus(frameworkId, toStatus(row, true));
    } catch (err) {
      this.logger.error({ err, frameworkId }, 'resending unacknowledged operation statuses failed; the next subscription will');
    }
  }
}
