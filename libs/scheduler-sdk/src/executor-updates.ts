/**
 * An executor's status updates from when they are made until the agent acknowledges them: sent
 * again with its next subscription while unacknowledged, and whether the agent has each (it
 * answered its UPDATE, or held it in a subscription it accepted), for `Executor.delivered()`.
 */
export type Status = Record<string, unknown>;

export class UnacknowledgedUpdates {
  /** By uuid (base64), in the order made; `taken` once the agent has it. */
  private readonly updates = new Map<string, { status: Status; taken: boolean }>();
  private waiters: Array<() => void> = [];
  private stopped = false;

  add(uuid: string, status: Status): void {
    this.updates.set(uuid, { status, taken: false });
  }

  /** Kept, and the agent does not have it yet: worth sending. */
  pending(uuid: string): boolean {
    return this.updates.get(uuid)?.taken === false;
  }

  /** The agent has it (it may still acknowledge it later). */
  taken(uuid: string): void {
    const update = this.updates.get(uuid);
    if (update) update.taken = true;
    this.settle();
  }

  /** The agent acknowledged it: no longer kept. */
  acknowledged(uuid: string): void {
    this.updates.delete(uuid);
    this.settle();
  }

  /** The uuids and statuses kept, in the order made (what a subscription holds). */
  kept(): Array<[uuid: string, status: Status]> {
    return [...this.updates].map(([uuid, u]) => [uuid, u.status]);
  }

  /** Those the agent does not have, in the order made. */
  untaken(): Array<[uuid: string, status: Status]> {
    return [...this.updates].filter(([, u]) => !u.taken).map(([uuid, u]) => [uuid, u.status]);
  }

  /** Resolves once the agent has every update kept now and made later, or once stopped. */
  delivered(): Promise<void> {
    if (this.done()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The executor stopped: nothing more will reach the agent, and nobody waits for it. */
  stop(): void {
    this.stopped = true;
    this.settle();
  }

  private done(): boolean {
    return this.stopped || [...this.updates.values()].every((u) => u.taken);
  }

  private settle(): void {
    if (!this.done()) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
