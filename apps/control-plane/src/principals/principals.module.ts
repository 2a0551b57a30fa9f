/**
 * Principals and their API tokens, managed through the API (create, disable, issue, revoke; a
 * caller's own sessions): above authentication (auth/, which checks the tokens) and the audit log
 * (every change is audited).
 */
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { PrincipalsController } from './principals.controller';
import { PrincipalsService } from './principals.service';
import { SessionsController } from './sessions.controller';

@Module({
  imports: [AuthModule],
  controllers: [PrincipalsController, SessionsController],
  providers: [PrincipalsService],
})
export class PrincipalsModule {}
