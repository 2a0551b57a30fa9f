/**
 * The frameworks the master knows: subscribed since it started leading, or restored from the
 * database and not subscribed again yet (their failover timeouts running). The registry is their
 * one owner: the frameworks' handlers change it (each through a method named for what happened),
 * always in the kernel's order; everything else reads it through `FrameworkRegistryView`, whose
 * frameworks are read-only.
 */
import { Injectable } from '@nestjs/common';
import type { FrameworkEvents } from '@arbiter/contracts';
import type { Actor } from '../auth/auth.actor';
import { Registry, type RegistryView } from './registry';

/**
 * A framework's connection, whichever protocol it speaks: a socket.io socket on /frameworks, or
 * the event stream of a Mesos scheduler API subscription (mesos/mesos-stream.ts). The handlers
 * need only this of it.
 */
/** How often a framework hears from the master that it is alive. */
export const FRAMEWORK_HEARTBEAT_SECONDS = 15;

export interface FrameworkConnection {
  readonly id: string;
  /** What the connection carries once subscribed (SessionData). */
  readonly data: unknown;
  emit<E extends keyof FrameworkEvents>(event: E, ...args: Parameters<FrameworkEvents[E]>): boolean;
  /** Closes the connection (a socket.io socket: its underlying connection too, when `close`). */
  disconnect(close?: boolean): unknown;
}

/** What the master keeps of a framework's registration (its row's fields it needs at hand). */
export interface FrameworkInfo {
  readonly name: string;
  readonly roles: string[];
  readonly capabilities: string[];
  readonly failoverTimeoutSeconds: number;
  /** Whether its executors outlive an agent restart (Mesos's FrameworkInfo.checkpoint; absent: true). */
  readonly checkpoint?: boolean;
}

export interface FrameworkRuntime extends FrameworkInfo {
  readonly id: string;
  /** The OS user its tasks run as unless they name one (Mesos's FrameworkInfo.user). */
  readonly user?: string | null;
  /** Who subscribed it (set on subscription): its ACLs apply to its calls. */
  readonly actor?: Actor;
  readonly socket?: FrameworkConnection;
}

/** What may read the frameworks without changing them. */
export type FrameworkRegistryView = RegistryView<FrameworkRuntime>;

@Injectable()
export class FrameworkRegistry extends Registry<FrameworkRuntime> {
  constructor() {
    super('a framework');
  }

  /** A framework subscribed again (or was restored): what it now says of itself, and the OS user its tasks run as. */
  describe(id: string, info: FrameworkInfo, user: string | null): void {
    this.change(id, 'describing a framework again', (framework) =>
      Object.assign(framework, {
        name: info.name,
        roles: info.roles,
        capabilities: info.capabilities,
        failoverTimeoutSeconds: info.failoverTimeoutSeconds,
        checkpoint: info.checkpoint,
        user,
      }),
    );
  }

  /** A framework's (re-)subscription on `socket`, by `actor`, its tasks run as `user` unless they name one. */
  connected(id: string, socket: FrameworkConnection, actor: Actor, user: string | null): void {
    this.change(id, 'connecting a framework', (framework) => Object.assign(framework, { socket, actor, user }));
  }

  /** A framework's connection closed (or it tore itself down): it stays known until removed. */
  disconnected(id: string): void {
    this.change(id, 'recording a framework disconnected', (framework) => (framework.socket = undefined));
  }
}
