/**
 * Starting and stopping the control plane: database (embedded or DATABASE_URL), migrations,
 * the Nest application with validation, errors, Swagger and logging, then the first admin token.
 */
import { PrincipalKind } from './auth/principal.entity';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type INestApplication, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import * as express from 'express';
import pino from 'pino';
import { type LoadedModules, loadModules } from '@arbiter/modules';
import { type AdminBootstrap, AuthService } from './auth/auth.service';
import type { Clock } from './kernel/clock';
import { type AppConfig, loadConfig } from './config/config.schema';
import { type DatabaseTarget, describeUrl, openDatabase } from './database/database.connection';
import { migrate } from './database/database.migrations';
import type { DataSource } from './database/database.options';
import { ErrorsFilter } from './errors/errors.filter';
import { assertErrorCodesRegistered } from './errors/errors.mapping';
import { validationException } from './errors/errors.validation';
import { Master } from './master-life';
import { AppModule, createDataSource } from './app.module';
import { declaredBodyLimit } from './app/body-reader';
import { limitConnections } from './app/connection-limits';
import { inputGate } from './app/input-gate';
import { createLogging, flushLogs } from './app/logging';
import { buildOpenApiDocument, serveApiDocs } from './app/openapi';

/** How long a REST request waits for the database (a query, or a connection) before 503. */
export const REST_QUERY_TIMEOUT_MS = 5_000;

async function migrateOnce(url: string): Promise<string[]> {
  const ds = createDataSource(url, { poolSize: 1, applicationName: 'arbiter-migrations' });
  await ds.initialize();
  try {
    return await migrate(ds);
  } finally {
    await ds.destroy();
  }
}

export interface ControlPlane {
  app: INestApplication;
  dataSource: DataSource;
  database: DatabaseTarget;
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  admin: AdminBootstrap;
  /** A new token for a service principal (e.g. the local agent of `arbiter start`). */
  issueServiceToken(name: string, kind?: 'AGENT' | 'FRAMEWORK'): Promise<string>;
  close(): Promise<void>;
}

/**
 * Global pipes, filters and the checks before routing, shared by the server and the OpenAPI
 * generator. Bodies are read after the auth guard (app/body-reader.ts), never before.
 */
function configureApp(app: INestApplication, config: AppConfig): void {
  const http = app.getHttpAdapter().getInstance() as express.Express;
  http.disable('x-powered-by');
  http.set('query parser', 'simple');
  app.use(declaredBodyLimit(config));
  app.use(inputGate);
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      transform: true,
      exceptionFactory: validationException,
    }),
  );
  app.useGlobalFilters(new ErrorsFilter());
}

export async function createApp(
  config: AppConfig,
  dataSource: DataSource,
  clock?: Clock,
  modules?: LoadedModules,
): Promise<INestApplication> {
  // Every module is loaded (AppModule imports them), so every error code is registered.
  assertErrorCodesRegistered();
  const logging = createLogging(config.logLevel);
  const app = await NestFactory.create(AppModule.forRoot(config, dataSource, clock, modules), {
    ...(config.tlsCert && config.tlsKey ? { httpsOptions: { cert: config.tlsCert.pem, key: config.tlsKey.pem } } : {}),
    logger: logging.nest,
    bodyParser: false,
    abortOnError: false,
  });
  app.use(logging.middleware);
  configureApp(app, config);
  return app;
}

/** Starts a control plane; `clock` replaces the system clock (tests pass a ManualClock). */
export async function startControlPlane(config: AppConfig, options: { clock?: Clock } = {}): Promise<ControlPlane> {
  const log = pino({ level: config.logLevel, base: { name: 'arbiter-control-plane' } });
  // Modules first: one that cannot be loaded stops the start before the database is touched.
  const modules = await loadModules(config.modules, { host: 'control-plane', log: (message, fields) => log.warn(fields, message) });
  if (modules.modules.length)
    log.info({ modules: modules.modules.map((m) => ({ name: m.name, use: m.use, points: m.points })) }, 'modules');
  const database = await openDatabase({
    ...config,
    onLog: (line) => log.debug({ postgres: line }, 'embedded postgres'),
    onNotice: (line) => log.warn(line),
  });
  log.info({ database: database.kind, at: describeUrl(database.url) }, 'database');
  // The REST API's pool fails a query the database leaves unanswered (a silent outage) with
  // 503 DATABASE_UNAVAILABLE rather than hanging the request; migrations, which may run long,
  // go through a connection of their own without that limit.
  const dataSource = createDataSource(database.url, { queryTimeoutMs: REST_QUERY_TIMEOUT_MS });
  let app: INestApplication | undefined;
  try {
    await dataSource.initialize();
    const applied = await migrateOnce(database.url);
    if (applied.length) log.info({ migrations: applied }, 'applied migrations');
    const created = await createApp(config, dataSource, options.clock, modules);
    app = created;
    serveApiDocs(app, () => buildOpenApiDocument(created));
    limitConnections(app.getHttpServer() as Server, config, (fields, message) => log.warn(fields, message));
    await app.listen(config.port);
    const admin = await app.get(AuthService).bootstrapAdmin(config.adminToken);
    const port = ((app.getHttpServer() as Server).address() as AddressInfo).port;
    // Leads at once when no other replica does; otherwise serves as a standby.
    await app.get(Master).start(port);
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      app,
      dataSource,
      database,
      url: `${config.tlsCert ? 'https' : 'http'}://127.0.0.1:${port}`,
      port,
      admin,
      issueServiceToken: (name: string, kind?: 'AGENT' | 'FRAMEWORK') =>
        running.get(AuthService).issueServiceToken(name, kind === 'FRAMEWORK' ? PrincipalKind.FRAMEWORK : PrincipalKind.AGENT),
      close: () =>
        (closing ??= (async () => {
          await running.close();
          if (dataSource.isInitialized) await dataSource.destroy();
          await database.stop();
          await modules.close();
          // Closed means all said: its last lines are out before whatever the caller prints next.
          await flushLogs();
        })()),
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    await database.stop().catch(() => undefined);
    await modules.close();
    throw err;
  }
}

/**
 * The OpenAPI document as committed in libs/contracts/openapi.json: built from an application
 * that is never started (no database connection is made).
 */
export async function generateOpenApiJson(): Promise<string> {
  const config = { ...loadConfig({}), logLevel: 'silent' as const };
  const app = await createApp(config, createDataSource('postgres://unused@127.0.0.1:1/unused'));
  try {
    return JSON.stringify(buildOpenApiDocument(app), null, 2) + '\n';
  } finally {
    await app.close();
  }
}
