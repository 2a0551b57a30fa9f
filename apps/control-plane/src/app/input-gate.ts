/**
 * The REST side of the input gate (libs/contracts, inputProblem): every request's path, query
 * string and parsed body are checked before routing, guards and validation, so a NUL byte, a
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

/** Express middleware, after the JSON body parser: refuses the request with the first problem found. */
export function inputGate(req: Request, _res: Response, next: NextFunction): void {
  const path = pathProblem(req.path);
  const query = path ? undefined : inputProblem(req.query);
  // Binary bodies (Mesos's protobuf calls) are decoded and checked by their own schema.
  const body = path || query || Buffer.isBuffer(req.body) ? undefined : inputProblem(req.body);
  if (path) next(refusal('path', path));
  else if (query) next(refusal('query', query));
  else if (body) next(refusal('body', body));
  else next();
}
