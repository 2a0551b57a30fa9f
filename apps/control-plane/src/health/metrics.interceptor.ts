import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type Observable, tap } from 'rxjs';
import { toArbiterException } from '../errors/errors.filter';
import { httpStatusOf } from '../errors/errors.mapping';
import { Metrics } from './metrics';

/** Counts and times every handled request by its route pattern (not its concrete URL). */
@Injectable()
export class MetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: Metrics) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = ctx.switchToHttp();
    const req = http.getRequest<Request>();
    const route = (req.route as { path?: string } | undefined)?.path ?? 'unknown';
    const end = this.metrics.httpDuration.startTimer({ method: req.method, route });
    const done = (status: number) => {
      end();
      this.metrics.httpRequests.inc({ method: req.method, route, status: String(status) });
    };
    return next.handle().pipe(
      tap({
        next: () => done(http.getResponse<Response>().statusCode),
        // The error filter sets the status after this; derive it the same way.
        error: (err: unknown) => {
          const known = toArbiterException(err, req);
          done(known ? httpStatusOf(known.code) : 500);
        },
      }),
    );
  }
}
