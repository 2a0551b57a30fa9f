/** Authentication: principals, API tokens, the guard every /api/v1 route passes. */
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import { PrincipalsController } from './principals.controller';
import { PrincipalsService } from './principals.service';
import { SessionsController } from './sessions.controller';
import { OwnsEntities } from '../database/database.entities';
import { PrincipalEntity } from './principal.entity';
import { ApiTokenEntity } from './api-token.entity';

@OwnsEntities(PrincipalEntity, ApiTokenEntity)
@Module({
  controllers: [AuthController, PrincipalsController, SessionsController],
  providers: [AuthRepository, AuthService, PrincipalsService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [AuthService],
})
export class AuthModule {}
