/**
 * Resources on the wire. Input: Mesos text (`cpus:4;mem:8192;ports:[31000-32000]`), a shorthand
 * object (`{"cpus": 4, "mem": 8192}`) or a list of entries; parsed by @arbiter/allocator.
 * Output: the list of entries (the canonical form) and, where useful, the text.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { registerDecorator, type ValidationArguments } from 'class-validator';
import { parseResourcesInput, ResourceParseError, type ResourceEntry, Resources, toMilli } from '@arbiter/allocator';
import type { ResourceEntry as WireResourceEntry } from '@arbiter/contracts';

export class ResourceEntryDto implements ResourceEntry {
  @ApiProperty({ example: 'cpus' }) name!: string;
  @ApiPropertyOptional({ description: 'scalar amount', example: 4 }) value?: number;
  @ApiPropertyOptional({
    description: 'inclusive [begin, end] ranges',
    type: 'array',
    items: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 },
    example: [[31000, 32000]],
  })
  ranges?: Array<[number, number]>;
  @ApiPropertyOptional({ type: [String] }) set?: string[];
  @ApiPropertyOptional({ description: 'role the piece is reserved for; absent = unreserved' }) reservation?: string;
  @ApiPropertyOptional() revocable?: boolean;
  @ApiPropertyOptional() shared?: boolean;
  @ApiPropertyOptional() volume?: string;
  @ApiPropertyOptional({
    description: "a disk's source other than the agent's root disk: PATH (shared out in any amount) or MOUNT (offered and used only whole)",
    type: 'object',
    properties: { type: { type: 'string', enum: ['PATH', 'MOUNT'] }, root: { type: 'string' } },
    required: ['type', 'root'],
  })
  source?: { type: 'PATH' | 'MOUNT'; root: string };
}

/**
 * One resource-entry shape: the wire's schema (libs/contracts), the allocator's type and this
 * DTO (the REST document's) are the same, or this fails to compile.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const RESOURCE_ENTRY_SHAPES_MATCH: Same<WireResourceEntry, ResourceEntry> = true;

/** OpenAPI schema of a resources input: text, shorthand object or entry list. */
export const RESOURCES_INPUT_SCHEMA = {
  oneOf: [
    { type: 'string', description: 'Mesos text form', example: 'cpus:4;mem:8192;ports:[31000-32000]' },
    {
      type: 'object',
      description: 'shorthand: scalar amounts, [begin, end] range lists or string sets by name',
      additionalProperties: true,
      example: { cpus: 4, mem: 8192 },
    },
    { type: 'array', items: { $ref: '#/components/schemas/ResourceEntryDto' } },
  ],
};

interface ResourcesRule {
  /** Only unreserved, non-revocable, non-shared scalars (quota). */
  scalarsOnly?: boolean;
  /** Only unreserved, non-revocable, non-shared pieces (what can be reserved). */
  unreservedOnly?: boolean;
  /** At least one piece. */
  nonEmpty?: boolean;
}

/** Parses resource input and applies a rule; throws ResourceParseError with a readable message. */
export function parseResourcesWithRule(value: unknown, rule: ResourcesRule = {}): Resources {
  const r = parseResourcesInput(value);
  if (rule.nonEmpty && r.isEmpty()) throw new ResourceParseError('must name at least one resource with a non-zero amount');
  if (rule.scalarsOnly || rule.unreservedOnly) {
    if (!r.reserved().isEmpty())
      throw new ResourceParseError(`must be unreserved (no '(role)' or 'reservation'); got ${r.reserved().toString()}`);
    if (!r.revocable().isEmpty()) throw new ResourceParseError('must not be revocable');
    if (!r.shared().isEmpty()) throw new ResourceParseError('must not be shared volumes');
  }
  if (rule.scalarsOnly && !r.nonScalars().isEmpty()) {
    throw new ResourceParseError(
      `must be scalar amounts (cpus, mem, disk, gpus, ...); ${[...r.nonScalars().names()].join(', ')} cannot have a quota`,
    );
  }
  return r;
}

/** Validates a DTO property as resources input; the message says what is wrong and where. */
export function IsResources(rule: ResourcesRule = {}): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isResources',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => {
          try {
            parseResourcesWithRule(value, rule);
            return true;
          } catch {
            return false;
          }
        },
        defaultMessage: (args: ValidationArguments) => {
          try {
            parseResourcesWithRule(args.value, rule);
            return `${args.property} is invalid`;
          } catch (err) {
            return `${args.property} ${err instanceof ResourceParseError ? err.message : 'must be resources such as "cpus:4;mem:8192" or {"cpus": 4, "mem": 8192}'}`;
          }
        },
      },
    });
  };
}

/** Scalar amounts by name, from resources known to hold only scalars. */
export function scalarMap(r: Resources): Record<string, number> {
  return Object.fromEntries([...r.scalarQuantities()].sort(([a], [b]) => a.localeCompare(b)));
}

/** OpenAPI schema of a scalar map such as `{"cpus": 4, "mem": 8192}`. */
export const SCALAR_MAP_SCHEMA = { type: 'object', additionalProperties: { type: 'number' }, example: { cpus: 4, mem: 8192 } } as const;

/** Oversubscription: revocable scalars, by resource name. */
export class RevocableUsageDto {
  @ApiProperty({
    ...SCALAR_MAP_SCHEMA,
    example: { cpus: 2 },
    description: "what agents offer as revocable now (their resource estimators' answers plus what revocable tasks hold)",
  })
  total!: Record<string, number>;
  @ApiProperty({ ...SCALAR_MAP_SCHEMA, example: { cpus: 1 }, description: 'held by revocable tasks and executors' })
  used!: Record<string, number>;
  @ApiProperty({ ...SCALAR_MAP_SCHEMA, example: { cpus: 1 }, description: 'offered and not yet answered' })
  offered!: Record<string, number>;
}

/** Scalar amounts of several resource lists added up, reservations ignored. */
export function sumScalars(lists: Iterable<ResourceEntry[]>): Record<string, number> {
  // Integer thousandths, as Resources adds them (exact), without building a Resources per list:
  // the API sums every live task of a large cluster on some reads.
  const milli = new Map<string, number>();
  for (const list of lists)
    for (const e of list) if (e.value !== undefined) milli.set(e.name, (milli.get(e.name) ?? 0) + toMilli(e.value, e.name));
  return Object.fromEntries(
    [...milli]
      .filter(([, m]) => m > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, m]) => [name, m / 1000]),
  );
}
