/**
 * The REST side of the input gate (libs/contracts, inputProblem): every request's path, query
 * string are checked before routing, and its parsed body before validation, so a NUL byte, a
 * lone surrogate or JSON nested past the limit is a 400 VALIDATION_FAILED wherever it is sent,
 * and never reaches class-validator's recursion or PostgreSQL.
 */
import type { NextFunction, Request, Response } from 'express';
import { type InputProblem, inputProblem, textProblem } from '@arbiter/contracts';
import { CommonErrorCode } from '../errors/errors.codes';
import { ArbiterException } from '../errors/errors.exception';

/** The problem of a request path: a segment that does not decode, or decodes to refused text. */
function pathProblem(path: string): InputProblem | undefined {
  for (const segment of path.split('/')) {
    let text: string;
    try {
      text = decodeURIComponent(segment);
    } catch {
      return { path: '(input)', message: 'must be percent-encoded UTF-8' };
    }
    const problem = textProblem(text);
    if (problem) return { path: '(input)', message: problem };
  }
  return undefined;
}

function refusal(where: string, problem: InputProblem): ArbiterException {
  const field = problem.path === '(input)' ? where : `${where}.${problem.path}`;
  return new ArbiterException(CommonErrorCode.VALIDATION_FAILED, `invalid request: ${field} ${problem.message}`, {
    errors: [{ field, problems: [problem.message] }],
  });
}

/**
 * Express middleware, before routing: refuses the request with the first problem of its path or
 * query string. The body is checked once it has been read, after authentication (`bodyProblem`,
 * app/body-reader.ts).
 */
export function inputGate(req: Request, _res: Response, next: NextFunction): void {
  const path = pathProblem(req.path);
  const query = path ? undefined : inputProblem(req.query);
  if (path) next(refusal('path', path));
  else if (query) next(refusal('query', query));
  else next();
}

/** The refusal of a parsed body, or undefined. Binary bodies (Mesos's protobuf calls) are decoded and checked by their own schema. */
export function bodyProblem(body: unknown): ArbiterException | undefined {
  const problem = Buffer.isBuffer(body) ? undefined : inputProblem(body);
  return problem ? refusal('body', problem) : undefined;
}
