import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../errors/errors.dto';
import { type Actor, CurrentActor } from './auth.actor';
import { Requires } from './permissions';

class WhoAmIDto {
  @ApiProperty({ example: 'admin', description: 'the principal the token belongs to' }) principal!: string;
  @ApiProperty({ enum: ['ADMIN', 'OPERATOR', 'VIEWER', 'FRAMEWORK', 'AGENT'], enumName: 'PrincipalKind' }) kind!: string;
}

@ApiTags('auth')
@ApiBearerAuth()
@Controller('api/v1/whoami')
export class AuthController {
  @Get()
  @Requires('any')
  @ApiOperation({ summary: 'The principal behind the bearer token (how a client checks a token before using it)' })
  @ApiOkResponse({ type: WhoAmIDto })
  @ApiErrors()
  whoami(@CurrentActor() actor: Actor): WhoAmIDto {
    return { principal: actor.name, kind: actor.kind ?? 'ADMIN' };
  }
}
