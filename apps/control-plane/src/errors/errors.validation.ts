/** Turns class-validator's (or a wire schema's) findings into one VALIDATION_FAILED error naming every bad field. */
import type { ValidationError } from '@nestjs/common';
import type { ZodType } from 'zod';
import { CommonErrorCode } from './errors.codes';
import { ArbiterException } from './errors.exception';

interface FieldProblem {
  field: string;
  problems: string[];
}

function flatten(errors: ValidationError[], prefix = ''): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) {
      // Messages name the property; with a path prefix, name the full path instead.
      const problems = Object.values(e.constraints).map((m) =>
        prefix && m.startsWith(e.property) ? field + m.slice(e.property.length) : m,
      );
      out.push({ field, problems });
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

export function validationException(errors: ValidationError[]): ArbiterException {
  const fields = flatten(errors);
  const messages = fields.flatMap((f) => f.problems);
  const shown = messages.slice(0, 5).join('; ') + (messages.length > 5 ? `; and ${messages.length - 5} more` : '');
  return new ArbiterException(
    CommonErrorCode.VALIDATION_FAILED,
    `invalid request: ${shown || 'the input does not match the expected shape'}`,
    { errors: fields },
  );
}

/** Checks one value against a wire contract's schema (a role path, say); the message names the field. */
export function checkField<T>(schema: ZodType<T>, value: unknown, field: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: ${field} ${r.error.issues[0].message}`, {
      errors: [{ field, problems: [r.error.issues[0].message] }],
    });
  return r.data;
}
