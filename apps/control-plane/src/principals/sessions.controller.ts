import { Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { Requires } from '../auth/permissions';
import { IssuedTokenDto, TokenDto } from './principals.dto';
import { PrincipalsService } from './principals.service';

/**
 * Sessions for the dashboard: an operator signs in with a token once, and the dashboard keeps
 * a short-lived token of the same principal instead, which signing out revokes.
 */
@ApiTags('access')
@ApiBearerAuth()
@Controller('api/v1/sessions')
export class SessionsController {
  constructor(private readonly principals: PrincipalsService) {}

  @Post()
  @Requires('read')
  @ApiOperation({
    summary:
      "Start a session: a new token of the caller's principal that expires within 12 hours (and not after the caller's token); the secret is in this answer only",
  })
  @ApiCreatedResponse({ type: IssuedTokenDto })
  @ApiErrors()
  start(@CurrentActor() actor: Actor): Promise<IssuedTokenDto> {
    return this.principals.startSession(actor);
  }

  @Delete('current')
  @HttpCode(200)
  @Requires('any')
  @ApiOperation({ summary: 'End the session this request is made with: its token stops working at once and its sockets close' })
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors(AuthErrorCode.NOT_A_SESSION)
  end(@CurrentActor() actor: Actor): Promise<TokenDto> {
    return this.principals.endSession(actor);
  }
}
