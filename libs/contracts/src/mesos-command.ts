/**
 * Mesos's CommandInfo (with the URIs fetched before it runs) and the checks that run commands,
 * HTTP requests or TCP connects against a task (HealthCheck, CheckInfo), in their JSON mapping
 * (see mesos.ts for the mapping's rules).
 */
import { z } from 'zod';

const text = (max = 4096) => z.string().max(max);

export const MesosCommandInfo = z
  .object({
    /** Mesos's CommandInfo.URI: fetched into the sandbox before the command starts (`extract` defaults to true, as in Mesos). */
    uris: z
      .array(
        z
          .object({
            value: z.string().min(1).max(4096),
            executable: z.boolean().optional(),
            extract: z.boolean().optional(),
            cache: z.boolean().optional(),
            output_file: z.string().min(1).max(4096).optional(),
          })
          .strict(),
      )
      .max(100)
      .optional(),
    environment: z
      .object({
        variables: z
          .array(
            z
              .object({
                name: z.string().min(1).max(255),
                type: z.enum(['UNKNOWN', 'VALUE', 'SECRET']).optional(),
                value: text(65_536).optional(),
                secret: z.unknown().optional(),
              })
              .strict(),
          )
          .max(1000)
          .optional(),
      })
      .strict()
      .optional(),
    shell: z.boolean().optional(),
    value: text(65_536).optional(),
    arguments: z.array(text(65_536)).max(1000).optional(),
    user: text(255).optional(),
  })
  .strict();
export type MesosCommandInfo = z.infer<typeof MesosCommandInfo>;

const CheckType = z.enum(['UNKNOWN', 'COMMAND', 'HTTP', 'TCP']);
const Protocol = z.enum(['IPv4', 'IPv6']);
const Port = z.number().int().min(0).max(65_535);
const CheckSeconds = z.number().min(0).max(86_400);

/** Mesos's HealthCheck (COMMAND, HTTP or TCP), mapped to Arbiter's HealthCheck. */
export const MesosHealthCheck = z
  .object({
    type: CheckType.optional(),
    command: MesosCommandInfo.optional(),
    http: z
      .object({
        protocol: Protocol.optional(),
        scheme: text(16).optional(),
        port: Port,
        path: text(4096).optional(),
        statuses: z.array(z.number().int()).max(100).optional(),
      })
      .strict()
      .optional(),
    tcp: z.object({ protocol: Protocol.optional(), port: Port }).strict().optional(),
    delay_seconds: CheckSeconds.optional(),
    interval_seconds: CheckSeconds.optional(),
    timeout_seconds: CheckSeconds.optional(),
    consecutive_failures: z.number().int().min(0).max(1000).optional(),
    grace_period_seconds: CheckSeconds.optional(),
  })
  .strict();
export type MesosHealthCheck = z.infer<typeof MesosHealthCheck>;

/** Mesos's CheckInfo (a general check), mapped to Arbiter's Check. */
export const MesosCheckInfo = z
  .object({
    type: CheckType.optional(),
    command: z.object({ command: MesosCommandInfo }).strict().optional(),
    http: z
      .object({ port: Port, path: text(4096).optional() })
      .strict()
      .optional(),
    tcp: z.object({ port: Port }).strict().optional(),
    delay_seconds: CheckSeconds.optional(),
    interval_seconds: CheckSeconds.optional(),
    timeout_seconds: CheckSeconds.optional(),
  })
  .strict();
export type MesosCheckInfo = z.infer<typeof MesosCheckInfo>;
