import { WHAT_IF_MAX_CYCLES } from '@arbiter/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsObject, IsOptional, Max, Min } from 'class-validator';

const QUANTITIES = { type: 'object', additionalProperties: { type: 'number' }, example: { cpus: 4, mem: 8192 } } as const;

export class WhatIfRequestDto {
  @ApiProperty({
    description:
      'The change to try. Every field is optional: weights {role: weight}; quotas {role: {guarantees, limits} | null}; ' +
      'addAgents [{hostname, resources, count}]; removeAgents [id or hostname]; addFrameworks [{id, roles, capabilities}]; ' +
      'removeFrameworks [id]; demand {frameworkId: quantities it would hold at most}',
    type: 'object',
    properties: {
      weights: { type: 'object', additionalProperties: { type: 'number' }, example: { eng: 2 } },
      quotas: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          nullable: true,
          properties: { guarantees: QUANTITIES, limits: QUANTITIES },
          required: ['guarantees'],
        },
      },
      addAgents: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            hostname: { type: 'string' },
            resources: {
              description: 'Mesos text ("cpus:8;mem:16384"), a shorthand object or resource entries',
              oneOf: [{ type: 'string' }, { type: 'object' }, { type: 'array', items: { type: 'object' } }],
            },
            count: { type: 'integer' },
          },
          required: ['hostname', 'resources'],
        },
      },
      removeAgents: { type: 'array', items: { type: 'string' } },
      addFrameworks: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            roles: { type: 'array', items: { type: 'string' } },
            capabilities: { type: 'array', items: { type: 'string' } },
          },
          required: ['id', 'roles'],
        },
      },
      removeFrameworks: { type: 'array', items: { type: 'string' } },
      demand: { type: 'object', additionalProperties: QUANTITIES },
    },
  })
  @IsObject({ message: 'change must be an object' })
  change!: Record<string, unknown>;

  @ApiPropertyOptional({ description: `allocation cycles to predict (1 to ${WHAT_IF_MAX_CYCLES})`, default: 3 })
  @IsOptional()
  @IsInt({ message: 'cycles must be a whole number' })
  @Min(1, { message: `cycles must be from 1 to ${WHAT_IF_MAX_CYCLES}` })
  @Max(WHAT_IF_MAX_CYCLES, { message: `cycles must be from 1 to ${WHAT_IF_MAX_CYCLES}` })
  cycles?: number;

  @ApiPropertyOptional({ description: 'also return the snapshot as a scenario file (for `arbiter simulate`)', default: false })
  @IsOptional()
  @IsBoolean({ message: 'scenario must be true or false' })
  scenario?: boolean;
}

class SimulatedOfferDto {
  @ApiProperty() frameworkId!: string;
  @ApiProperty() role!: string;
  @ApiProperty() agentId!: string;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) resources!: unknown[];
}

class SimulatedCycleDto {
  @ApiProperty() cycle!: number;
  @ApiProperty({ type: [SimulatedOfferDto] }) offers!: SimulatedOfferDto[];
  @ApiProperty({
    description: 'weighted dominant shares after the cycle: roles {role: share}, frameworks {frameworkId: {role: share}}',
    type: 'object',
    properties: {
      roles: { type: 'object', additionalProperties: { type: 'number' } },
      frameworks: { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'number' } } },
    },
  })
  shares!: { roles: Record<string, number>; frameworks: Record<string, Record<string, number>> };
  @ApiProperty({
    description: 'why resources were not offered, counted by reason',
    type: 'object',
    additionalProperties: { type: 'number' },
  })
  reasons!: Record<string, number>;
}

export class WhatIfResultDto {
  @ApiProperty({ description: 'cycles predicted' }) cycles!: number;
  @ApiProperty({ description: 'when the snapshot of the live allocator was taken' }) at!: string;
  @ApiProperty({
    description: 'hostnames by agent id (what-if agents have ids what-if:<hostname>)',
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  agents!: Record<string, string>;
  @ApiProperty({ description: 'names by framework id', type: 'object', additionalProperties: { type: 'string' } })
  frameworks!: Record<string, string>;
  @ApiProperty({ type: [SimulatedCycleDto], description: 'the next cycles as the cluster is' }) baseline!: SimulatedCycleDto[];
  @ApiProperty({ type: [SimulatedCycleDto], description: 'the next cycles with the change' }) changed!: SimulatedCycleDto[];
  @ApiPropertyOptional({
    description: 'the snapshot as an allocator scenario (when asked for)',
    type: 'object',
    additionalProperties: true,
  })
  scenario?: Record<string, unknown>;
}
