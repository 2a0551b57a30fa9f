/** Authentication: principals, API tokens, the guard every /api/v1 route passes (principals/ manages them). */
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import { OwnsEntities } from '../database/database.entities';
import { PrincipalEntity } from './principal.entity';
import { ApiTokenEntity } from './api-token.entity';

@OwnsEntities(PrincipalEntity, ApiTokenEntity)
@Module({
  controllers: [AuthController],
  providers: [AuthRepository, AuthService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [AuthService, AuthRepository],
})
export class AuthModule {}
