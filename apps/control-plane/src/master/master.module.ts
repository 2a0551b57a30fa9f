/** The master: allocation loop, /agents, /frameworks and /events. */
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { Gateways } from './gateways';
import { Master } from './master.service';
import { OperatorStream } from './operator-stream';
import { Realtime } from './realtime';

@Module({
  imports: [AuthModule],
  providers: [Realtime, OperatorStream, Master, Gateways],
  exports: [Master, OperatorStream],
})
export class MasterModule {}
