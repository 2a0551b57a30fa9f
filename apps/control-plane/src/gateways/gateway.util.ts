/**
 * Binding protocol calls to a socket: every call is parsed against its schema, run, and
 * acknowledged with a Reply; a bad message or a refused call answers `{ ok: false, error }`
 * and never reaches the state or crashes the process. Only a failure of the control plane
 * itself answers INTERNAL_ERROR (and is logged with its stack).
 */
import { Logger } from '@nestjs/common';
import type { z } from 'zod';
import { ResourceParseError } from '@arbiter/allocator';
import { inputProblem, parseMessage, PROTOCOL_ERRORS, type Reply } from '@arbiter/contracts';
import type { Socket } from 'socket.io';
import { asProtocolError } from '../kernel/protocol-error';

const logger = new Logger('Protocol');

export function on<L extends object, S extends z.ZodType>(
  socket: Socket<L>,
  event: keyof L & string,
  schema: S,
  handle: (msg: z.infer<S>) => unknown,
): void {
  // The payload is parsed here, whatever the event map says the client sends.
  const name: string = event;
  (socket as unknown as Socket).on(name, async (payload: unknown, ack?: unknown) => {
    const reply = typeof ack === 'function' ? (ack as (r: Reply<Record<string, unknown>>) => void) : () => undefined;
    // NUL bytes, lone surrogates and deep nesting are refused before any schema sees them.
    const problem = inputProblem(payload);
    if (problem) {
      reply({
        ok: false,
        error: {
          code: PROTOCOL_ERRORS.INVALID_MESSAGE,
          message: `invalid message: ${problem.path}: ${problem.message}`,
          details: { issues: [problem] },
        },
      });
      return;
    }
    const parsed = parseMessage(schema, payload ?? {});
    if (!parsed.ok) {
      reply({ ok: false, error: parsed.error });
      return;
    }
    try {
      const result = await handle(parsed.value);
      reply({ ok: true, ...(typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {}) });
    } catch (err) {
      const known = asProtocolError(err);
      if (known) {
        // A deposed leader's calls in flight: one line, no stack (the client moves to the leader).
        if (known.code === PROTOCOL_ERRORS.NOT_LEADER) logger.warn({ event }, 'refused a call: this replica is no longer the leader');
        reply({ ok: false, error: { code: known.code, message: known.message, ...(known.details ? { details: known.details } : {}) } });
        return;
      }
      // Resources the schema let through but the allocator's algebra refuses are still bad input.
      if (err instanceof ResourceParseError) {
        reply({ ok: false, error: { code: PROTOCOL_ERRORS.INVALID_MESSAGE, message: `invalid message: ${err.message}` } });
        return;
      }
      logger.error({ err, event }, 'protocol call failed');
      reply({ ok: false, error: { code: PROTOCOL_ERRORS.INTERNAL_ERROR, message: 'internal error; see the control plane log' } });
    }
  });
}
