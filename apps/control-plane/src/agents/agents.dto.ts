import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { AGENT_PROBLEM_CODES } from '@arbiter/contracts';
import { Resources } from '@arbiter/allocator';
import { PageQueryDto } from '../common/pagination.dto';
import { ResourceEntryDto, RevocableUsageDto, SCALAR_MAP_SCHEMA, sumScalars } from '../common/resources.dto';
import { ExecutorDto } from '../executors/executors.dto';
import { type AgentEntity, AgentStatus, DrainState } from './agent.entity';
import type { AgentOccupancy, OnAgent } from '../master/agent-occupancy.repository';
import { AGENT_SORT_FIELDS } from './agents.repository';

const SORTS = AGENT_SORT_FIELDS.flatMap((f) => [f, `-${f}`]);

export class AgentListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'substring of the hostname (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  hostname?: string;

  @ApiPropertyOptional({ enum: AgentStatus, enumName: 'AgentStatus' })
  @IsOptional()
  @IsIn(Object.values(AgentStatus), { message: `status must be one of ${Object.values(AgentStatus).join(', ')}` })
  status?: AgentStatus;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'activated must be true or false' })
  activated?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ['NONE', ...Object.values(DrainState)], description: 'NONE: not draining' })
  @IsOptional()
  @IsIn(['NONE', ...Object.values(DrainState)], { message: `drainState must be one of NONE, ${Object.values(DrainState).join(', ')}` })
  drainState?: DrainState | 'NONE';

  @ApiPropertyOptional({ enum: SORTS, default: 'hostname', description: "field to sort by; '-' for descending" })
  @IsOptional()
  @IsIn(SORTS, { message: `sort must be one of ${SORTS.join(', ')}` })
  sort?: string;
}

export class DrainAgentDto {
  @ApiPropertyOptional({
    description: 'seconds tasks get to finish before being killed; absent: as long as they need',
    minimum: 0,
    maximum: 31_536_000,
  })
  @IsOptional()
  @IsInt({ message: 'maxGracePeriodSeconds must be a whole number of seconds' })
  @Min(0)
  @Max(31_536_000)
  maxGracePeriodSeconds?: number;

  @ApiPropertyOptional({ description: 'mark the agent GONE once drained (it can never come back under this id)', default: false })
  @IsOptional()
  @IsBoolean({ message: 'markGone must be true or false' })
  markGone?: boolean;
}

class DrainConfigDto {
  @ApiProperty({ type: Number, nullable: true }) maxGracePeriodSeconds!: number | null;
  @ApiProperty() markGone!: boolean;
}

class AgentIsolationDto {
  @ApiProperty({ enum: ['cgroups-v1', 'cgroups-v2', 'posix'], description: 'posix: process groups and polling only, no hard limits' })
  mode!: string;
  @ApiProperty({ type: [String], example: ['memory', 'cpu', 'pids'], description: 'cgroup controllers limiting each task' })
  controllers!: string[];
  @ApiPropertyOptional({ example: 'nobody', description: 'OS user of tasks whose spec names none' }) taskUser?: string;
  @ApiProperty({ description: 'disk use measured and enforced' }) diskQuota!: boolean;
}

class AgentProblemDto {
  @ApiProperty({ enum: AGENT_PROBLEM_CODES, description: 'DISK_RESERVE_IN_USE: launches are refused (DROPPED) until there is room' })
  code!: string;
  @ApiProperty({
    example: 'its work directory /var/lib/arbiter has 12.0 MiB free, under the 32.0 MiB it keeps for its journal and checkpoints',
  })
  message!: string;
}

class SandboxDiskDto {
  @ApiProperty({ example: 268435456000, description: 'the size of the disk that holds its sandboxes' }) totalBytes!: number;
  @ApiProperty({ example: 80530636800, description: 'what is free on it (rounded down to a thousandth of the disk)' })
  freeBytes!: number;
  @ApiProperty({ example: 0.1, description: 'the share its garbage collection keeps free: there it removes ended sandboxes at once' })
  gcHeadroom!: number;
}

class AgentHealthDto {
  @ApiProperty({ description: 'false while something keeps it from running new tasks' }) ok!: boolean;
  @ApiProperty({ type: [AgentProblemDto] }) problems!: AgentProblemDto[];
  @ApiPropertyOptional({ type: SandboxDiskDto, description: "its sandboxes' disk, as it last reported (absent: not reported)" })
  sandboxDisk?: SandboxDiskDto;
}

class AgentRuntimeInfoDto {
  @ApiProperty({ example: 'runc' }) name!: string;
  @ApiProperty({ example: '1.1.12' }) version!: string;
}

class AgentGpuDto {
  @ApiProperty() index!: number;
  @ApiProperty({ example: 'NVIDIA H100 80GB HBM3' }) model!: string;
  @ApiPropertyOptional() uuid?: string;
}

class AgentCapabilitiesDto {
  @ApiProperty({ type: [String], example: ['mesos'] }) containerizers!: string[];
  @ApiProperty({
    type: [String],
    example: ['cgroups/mem', 'filesystem/linux', 'namespaces/pid', 'network/ports'],
    description: "Mesos's isolator names",
  })
  isolators!: string[];
  @ApiPropertyOptional({ type: AgentRuntimeInfoDto, description: 'the OCI runtime that runs images (absent: none)' })
  runtime?: AgentRuntimeInfoDto;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { skopeo: '1.9.3', umoci: '0.4.7' } })
  tools!: Record<string, string>;
  @ApiProperty({ type: [AgentGpuDto] }) gpus!: AgentGpuDto[];
  @ApiPropertyOptional({ description: 'why images cannot run there (tasks with an image are refused at the accept)' })
  imagesProblem?: string;
}

class AgentDto {
  @ApiProperty() id!: string;
  @ApiProperty() hostname!: string;
  @ApiProperty({ type: String, nullable: true, description: 'host:port of the agent' }) address!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] }, example: { rack: 'r1' } })
  attributes!: Record<string, string | number>;
  @ApiProperty({ type: [ResourceEntryDto], description: 'total resources' }) resources!: ResourceEntryDto[];
  @ApiProperty({ example: 'cpus:4;mem:8192;ports:[31000-32000]', description: 'total resources, Mesos text form' }) resourcesText!: string;
  @ApiProperty({ enum: AgentStatus, enumName: 'AgentStatus' }) status!: AgentStatus;
  @ApiProperty({ description: 'false when deactivated: no new offers' }) activated!: boolean;
  @ApiProperty({ enum: DrainState, enumName: 'DrainState', nullable: true }) drainState!: DrainState | null;
  @ApiProperty({ type: DrainConfigDto, nullable: true }) drainConfig!: DrainConfigDto | null;
  @ApiProperty({ type: String, nullable: true }) drainStartedAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) version!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the principal that registered it (only it may register under its id)' })
  principal!: string | null;
  @ApiProperty({ type: AgentIsolationDto, nullable: true, description: 'how it isolates tasks, as it reported' })
  isolation!: AgentIsolationDto | null;
  @ApiProperty({
    type: AgentCapabilitiesDto,
    nullable: true,
    description: 'its containerizers, isolators, runtime, tools and GPUs, as it reported (null: an older agent, plain processes only)',
  })
  capabilities!: AgentCapabilitiesDto | null;
  @ApiProperty({
    type: AgentHealthDto,
    nullable: true,
    description: 'what keeps it from running new tasks, as it last reported (null: it never said)',
  })
  health!: AgentHealthDto | null;
  @ApiProperty() firstSeenAt!: string;
  @ApiProperty() lastSeenAt!: string;
}

class AgentMaintenanceDto {
  @ApiProperty({
    enum: ['DRAINING', 'DOWN'],
    description: 'DRAINING: scheduled (frameworks get inverse offers); DOWN: in maintenance (no offers)',
  })
  mode!: 'DRAINING' | 'DOWN';
  @ApiProperty({ description: "start of the machine's unavailability" }) start!: string;
  @ApiProperty({ type: Number, nullable: true, description: 'seconds; null: until maintenance is stopped' }) durationSeconds!:
    number | null;
}

class AgentUsageDto {
  @ApiProperty({ ...SCALAR_MAP_SCHEMA, description: 'scalar totals of the agent (revocable amounts included)' }) total!: Record<
    string,
    number
  >;
  @ApiProperty({ ...SCALAR_MAP_SCHEMA, description: 'held by live tasks and their executors (revocable amounts included)' })
  used!: Record<string, number>;
  @ApiProperty({ ...SCALAR_MAP_SCHEMA, description: 'offered and not yet answered (revocable amounts included)' }) offered!: Record<
    string,
    number
  >;
  @ApiProperty({ ...SCALAR_MAP_SCHEMA, description: 'reserved for roles (used or not)' }) reserved!: Record<string, number>;
  @ApiProperty({ description: 'tasks not in a terminal state' }) activeTasks!: number;
  @ApiProperty({
    type: RevocableUsageDto,
    description:
      "oversubscription: the agent's revocable resources as the leader's allocator has them (empty maps when it reports none, or is not reachable)",
  })
  revocable!: RevocableUsageDto;
}

/** An agent as operators see it: its row, what sits on it, and the cluster settings that concern it. */
export class AgentViewDto extends AgentDto {
  @ApiProperty({ type: AgentUsageDto }) usage!: AgentUsageDto;
  @ApiProperty({ description: 'false when a whitelist is set and does not name the hostname' }) whitelisted!: boolean;
  @ApiProperty({ type: AgentMaintenanceDto, nullable: true, description: 'the maintenance window of its machine, if any' })
  maintenance!: AgentMaintenanceDto | null;
  @ApiPropertyOptional({
    type: [ExecutorDto],
    description: 'its running executors (one agent only; those of the frameworks whose tasks the caller may view)',
  })
  executors?: ExecutorDto[];
}

export class AgentPageDto {
  @ApiProperty({ type: [AgentViewDto] }) items!: AgentViewDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
}

export function toAgentDto(a: AgentEntity): AgentDto {
  return {
    id: a.id,
    hostname: a.hostname,
    address: a.address,
    attributes: a.attributes,
    resources: a.resources,
    resourcesText: Resources.of(a.resources).toString(),
    status: a.status,
    activated: a.activated,
    drainState: a.drainState,
    drainConfig: a.drainConfig,
    drainStartedAt: a.drainStartedAt?.toISOString() ?? null,
    version: a.version,
    principal: a.principal,
    isolation: a.isolation,
    capabilities: a.capabilities ?? null,
    health: a.health,
    firstSeenAt: a.firstSeenAt.toISOString(),
    lastSeenAt: a.lastSeenAt.toISOString(),
  };
}

/** Agents with what sits on them (see AgentOccupancyRepository) and their revocable resources (LiveView). */
export function toAgentViews(agents: AgentEntity[], o: AgentOccupancy, revocable: ReadonlyMap<string, RevocableUsageDto>): AgentViewDto[] {
  const group = (rows: OnAgent[]) => {
    const m = new Map<string, OnAgent[]>();
    for (const r of rows) m.set(r.agentId, [...(m.get(r.agentId) ?? []), r]);
    return m;
  };
  const [tasks, executors, offers, reservations] = [group(o.tasks), group(o.executors), group(o.offers), group(o.reservations)];
  const sum = (rows?: OnAgent[]) => sumScalars((rows ?? []).map((r) => r.resources));
  const whitelist = o.whitelist === null ? null : new Set(o.whitelist);
  return agents.map((a) => {
    const machine = o.machines.find((m) => m.hostname === a.hostname);
    return {
      ...toAgentDto(a),
      usage: {
        total: sumScalars([a.resources]),
        used: sum([...(tasks.get(a.id) ?? []), ...(executors.get(a.id) ?? [])]),
        offered: sum(offers.get(a.id)),
        reserved: sum(reservations.get(a.id)),
        activeTasks: tasks.get(a.id)?.length ?? 0,
        revocable: revocable.get(a.id) ?? { total: {}, used: {}, offered: {} },
      },
      whitelisted: whitelist === null || whitelist.has(a.hostname),
      maintenance: machine ? { mode: machine.mode, start: machine.startAt.toISOString(), durationSeconds: machine.durationSeconds } : null,
    };
  });
}
