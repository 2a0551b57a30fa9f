/** The /agents and /frameworks namespaces: protocol calls handed to the master. */
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { z } from 'zod';
import {
  Accept,
  Acknowledge,
  AGENTS_NAMESPACE,
  Decline,
  FRAMEWORKS_NAMESPACE,
  InverseOfferAnswer,
  Kill,
  Reconcile,
  RegisterAgent,
  RolesCall,
  StatusUpdate,
  Subscribe,
} from '@arbiter/contracts';
import { on } from './gateway.util';
import { Master } from './master.service';
import { OperatorStream } from './operator-stream';
import { type AuthedSocketData, Realtime } from './realtime';

const Empty = z.object({}).strict();

@Injectable()
export class Gateways implements OnApplicationBootstrap {
  constructor(
    private readonly realtime: Realtime,
    private readonly master: Master,
    private readonly stream: OperatorStream,
  ) {}

  onApplicationBootstrap(): void {
    this.stream.open();

    this.realtime.namespace(AGENTS_NAMESPACE).on('connection', (socket) => {
      on(socket, 'register', RegisterAgent, (msg) => this.master.registerAgent(socket, msg));
      on(socket, 'heartbeat', Empty, () => this.master.heartbeatAgent(socket));
      on(socket, 'status', StatusUpdate, (msg) => this.master.agentStatus(socket, msg));
      socket.on('disconnect', () => void this.master.agentDisconnected(socket));
    });

    this.realtime.namespace(FRAMEWORKS_NAMESPACE).on('connection', (socket) => {
      const principal = (socket.data as AuthedSocketData).actor.name;
      on(socket, 'subscribe', Subscribe, (msg) => this.master.subscribe(socket, msg, principal));
      on(socket, 'accept', Accept, (msg) => this.master.accept(socket, msg));
      on(socket, 'decline', Decline, (msg) => this.master.decline(socket, msg));
      on(socket, 'suppress', RolesCall, (msg) => this.master.suppress(socket, msg));
      on(socket, 'revive', RolesCall, (msg) => this.master.revive(socket, msg));
      on(socket, 'kill', Kill, (msg) => this.master.kill(socket, msg));
      on(socket, 'acknowledge', Acknowledge, (msg) => this.master.acknowledge(socket, msg));
      on(socket, 'reconcile', Reconcile, (msg) => this.master.reconcile(socket, msg));
      on(socket, 'inverseOffer', InverseOfferAnswer, (msg) => this.master.answerInverseOffer(socket, msg));
      on(socket, 'teardown', Empty, () => this.master.teardown(socket));
      socket.on('disconnect', () => void this.master.frameworkDisconnected(socket));
    });
  }
}
