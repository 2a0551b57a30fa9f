import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentsErrorCode } from '../agents/agents.errors';
import { type Actor, CurrentActor } from '../auth/auth.actor';
import { Requires } from '../auth/permissions';
import { ApiErrors } from '../errors/errors.dto';
import { OnLeader } from '../leadership/on-leader';
import { CreatePersistentVolumeDto, PersistentVolumeDto, PersistentVolumePageDto, PersistentVolumeQueryDto } from './volumes.dto';
import { VolumesErrorCode } from './volumes.errors';
import { VolumesService } from './volumes.service';

@ApiTags('volumes')
@ApiBearerAuth()
@Controller('api/v1/volumes')
export class VolumesController {
  constructor(private readonly volumes: VolumesService) {}

  @Get()
  @Requires('read')
  @ApiOperation({ summary: 'Persistent volumes, newest first (filter by agent and role)' })
  @ApiOkResponse({ type: PersistentVolumePageDto })
  @ApiErrors()
  list(@Query() q: PersistentVolumeQueryDto): Promise<PersistentVolumePageDto> {
    return this.volumes.list({ agentId: q.agentId, role: q.role }, q.limit, q.offset);
  }

  @Get(':id')
  @Requires('read')
  @ApiOperation({ summary: 'One persistent volume' })
  @ApiOkResponse({ type: PersistentVolumeDto })
  @ApiErrors(VolumesErrorCode.VOLUME_NOT_FOUND)
  get(@Param('id') id: string): Promise<PersistentVolumeDto> {
    return this.volumes.get(id);
  }

  @Post()
  @OnLeader()
  @Requires('operate', 'create_volumes')
  @ApiOperation({ summary: "Create a persistent volume on disk reserved for a role (Mesos's CREATE); the agent makes its directory" })
  @ApiCreatedResponse({ type: PersistentVolumeDto })
  @ApiErrors(
    AgentsErrorCode.AGENT_NOT_FOUND,
    AgentsErrorCode.AGENT_GONE,
    VolumesErrorCode.VOLUME_EXISTS,
    VolumesErrorCode.VOLUME_INSUFFICIENT_DISK,
    VolumesErrorCode.VOLUME_AGENT_UNREACHABLE,
    VolumesErrorCode.VOLUME_AGENT_FAILED,
  )
  create(@Body() body: CreatePersistentVolumeDto, @CurrentActor() actor: Actor): Promise<PersistentVolumeDto> {
    return this.volumes.create(body, actor);
  }

  @Delete(':id')
  @OnLeader()
  @Requires('operate', 'destroy_volumes')
  @HttpCode(204)
  @ApiOperation({ summary: "Destroy a persistent volume and its data (Mesos's DESTROY; refused while a task uses it)" })
  @ApiErrors(
    VolumesErrorCode.VOLUME_NOT_FOUND,
    VolumesErrorCode.VOLUME_IN_USE,
    VolumesErrorCode.VOLUME_AGENT_UNREACHABLE,
    VolumesErrorCode.VOLUME_AGENT_FAILED,
  )
  destroy(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.volumes.destroy(id, actor);
  }
}
