import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { AuthErrorCode } from '../auth/auth.errors';
import { Requires } from '../auth/permissions';
import { CreatePrincipalDto, CreateTokenDto, IssuedTokenDto, PrincipalDto, TokenDto } from './principals.dto';
import { PrincipalsService } from './principals.service';

@ApiTags('access')
@ApiBearerAuth()
@Controller('api/v1')
export class PrincipalsController {
  constructor(private readonly principals: PrincipalsService) {}

  @Get('principals')
  @Requires('admin')
  @ApiOperation({ summary: 'Every principal with its kind and number of live tokens' })
  @ApiOkResponse({ type: [PrincipalDto] })
  @ApiErrors()
  list(): Promise<PrincipalDto[]> {
    return this.principals.list();
  }

  @Post('principals')
  @Requires('admin')
  @ApiOperation({ summary: 'Create a principal (ADMIN, OPERATOR, VIEWER, FRAMEWORK or AGENT)' })
  @ApiCreatedResponse({ type: PrincipalDto })
  @ApiErrors(AuthErrorCode.PRINCIPAL_EXISTS)
  create(@Body() body: CreatePrincipalDto, @CurrentActor() actor: Actor): Promise<PrincipalDto> {
    return this.principals.create(body, actor);
  }

  @Post('principals/:name/disable')
  @HttpCode(200)
  @Requires('admin')
  @ApiOperation({ summary: 'Disable a principal: its tokens stop working and its open sockets are closed' })
  @ApiOkResponse({ type: PrincipalDto })
  @ApiErrors(AuthErrorCode.PRINCIPAL_NOT_FOUND)
  disable(@Param('name') name: string, @CurrentActor() actor: Actor): Promise<PrincipalDto> {
    return this.principals.disable(name, actor);
  }

  @Get('principals/:name/tokens')
  @Requires('admin')
  @ApiOperation({ summary: "A principal's tokens (never their secrets)" })
  @ApiOkResponse({ type: [TokenDto] })
  @ApiErrors(AuthErrorCode.PRINCIPAL_NOT_FOUND)
  tokens(@Param('name') name: string): Promise<TokenDto[]> {
    return this.principals.tokens(name);
  }

  @Post('principals/:name/tokens')
  @Requires('admin')
  @ApiOperation({ summary: 'Issue a token for a principal: the secret is in this answer only' })
  @ApiCreatedResponse({ type: IssuedTokenDto })
  @ApiErrors(AuthErrorCode.PRINCIPAL_NOT_FOUND, AuthErrorCode.PRINCIPAL_DISABLED)
  issue(@Param('name') name: string, @Body() body: CreateTokenDto, @CurrentActor() actor: Actor): Promise<IssuedTokenDto> {
    return this.principals.issue(name, body, actor);
  }

  @Delete('tokens/:id')
  @Requires('admin')
  @ApiOperation({ summary: 'Revoke a token: refused at once, its open sockets closed' })
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors(AuthErrorCode.TOKEN_NOT_FOUND)
  revoke(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<TokenDto> {
    return this.principals.revoke(id, actor);
  }
}
