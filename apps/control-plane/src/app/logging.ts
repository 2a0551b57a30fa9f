/**
 * Logs: structured JSON from pino. Each HTTP request is logged by pino-http with its request id
 * (a caller's sane X-Request-Id, echoed back, or a new one), and whatever the code logs while
 * serving a request carries that id. Nest's own loggers (`new Logger('Master')`) write through
 * `PinoNestLogger`, with their context as a field.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoggerService } from '@nestjs/common';
import pino, { type Level, type LevelWithSilent, type Logger as Pino } from 'pino';
import { pinoHttp } from 'pino-http';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Nest's start-up chatter (modules loaded, routes mapped) goes to debug. */
const CHATTY_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

/** The logger of the request being served, if any. */
const requestLogger = new AsyncLocalStorage<Pino>();

interface Logging {
  root: Pino;
  /** Nest's logger. */
  nest: PinoNestLogger;
  /** Express middleware: logs each request and binds its logger for what runs while it is served. */
  middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
}

/** Each root logger of this process with the level it was configured with. */
const roots = new Map<Pino, LevelWithSilent>();

/**
 * Raises every root logger of the process to `level` (`debug`, `trace`), or puts each back at
 * its configured level (null): the operator API's SET_LOGGING_LEVEL.
 */
export function raiseLogLevel(level: 'debug' | 'trace' | null): void {
  for (const [root, configured] of roots) root.level = level ?? configured;
}

/** Writes out what every root logger of the process still holds (pino writes to stdout asynchronously). */
export async function flushLogs(): Promise<void> {
  await Promise.all([...roots.keys()].map((root) => new Promise<void>((resolve) => root.flush(() => resolve()))));
}

export function createLogging(level: LevelWithSilent): Logging {
  const root = pino({ level, base: { name: 'arbiter-control-plane' } });
  roots.set(root, level);
  const http = pinoHttp({
    logger: root,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/metrics' },
  });
  return {
    root,
    nest: new PinoNestLogger(root),
    middleware: (req, res, next) => {
      http(req, res);
      requestLogger.run(req.log, next);
    },
  };
}

/**
 * Nest's LoggerService on pino. Nest passes the logger's context last; an object first is
 * merged into the line (an Error as `err`), as in `logger.error({ err }, 'what failed')`.
 */
class PinoNestLogger implements LoggerService {
  constructor(private readonly root: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    this.write(typeof context === 'string' && CHATTY_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const logger = requestLogger.getStore() ?? this.root;
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    if (rest.length) fields.context = rest.pop();
    if (message instanceof Error) fields.err = message;
    else if (typeof message === 'object' && message !== null) Object.assign(fields, message);
    else if (level === 'error' && typeof rest[0] === 'string' && rest.length === 1 && rest[0].includes('\n    at ')) {
      // Nest's exception handlers pass (message, stack, context).
      const err = new Error(String(message));
      err.stack = rest[0];
      logger.error({ ...fields, err });
      return;
    } else rest.unshift(message);
    const [msg, ...args] = rest;
    if (msg === undefined) logger[level](fields);
    else logger[level](fields, typeof msg === 'string' ? msg : JSON.stringify(msg), ...args);
  }
}
