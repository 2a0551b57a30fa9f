/** The OpenAPI document, generated from the controllers and DTOs. */
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import * as swaggerUi from 'swagger-ui-express';

const API_VERSION = '1.0.0';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Arbiter control plane')
    .setDescription(
      'Operator API of Arbiter, a two-level cluster resource manager. Every /api/v1 call needs `Authorization: Bearer <token>`. ' +
        'Errors are JSON `{statusCode, code, message, details}` with a stable `code`. Resources are accepted as Mesos text ' +
        '(`cpus:4;mem:8192`), as a shorthand object (`{"cpus": 4}`) or as a list of entries.',
    )
    .setVersion(API_VERSION)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'an API token (ARBITER_ADMIN_TOKEN or the one printed on first start)' })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return document;
}

/**
 * Serves the document NestJS builds: Swagger UI at /api/docs (swagger-ui-express) and the JSON
 * at /api/docs-json. Both are open, like /health: the API itself still needs a token. The
 * document is built on the first request for it, not at start: building it (every controller's
 * and DTO's metadata walked) was a third of the CPU time of a start (docs/benchmarks.md).
 */
export function serveApiDocs(app: INestApplication, document: () => OpenAPIObject): void {
  const http = app.getHttpAdapter().getInstance() as Express;
  // Written once: an open route must not cost a serialisation of the whole document per request.
  let built: { json: string; page: RequestHandler } | undefined;
  const docs = () => {
    if (built) return built;
    const doc = document();
    // setup also writes the swagger-ui-init.js that swaggerUi.serve answers with.
    built = { json: JSON.stringify(doc), page: swaggerUi.setup(doc, { customSiteTitle: 'Arbiter API' }) };
    return built;
  };
  http.get('/api/docs-json', (_req, res) => {
    res.type('application/json').send(docs().json);
  });
  app.use(
    '/api/docs',
    (_req: Request, _res: Response, next: NextFunction) => {
      docs();
      next();
    },
    swaggerUi.serve,
    (req: Request, res: Response, next: NextFunction) => docs().page(req, res, next),
  );
}

export const OPENAPI_FILE = path.resolve(__dirname, '../../../../libs/contracts/openapi.json');

/** TypeScript types of the REST API, generated from the OpenAPI document (what the dashboard's client is typed with). */
export const API_TYPES_FILE = path.resolve(__dirname, '../../../../libs/contracts/src/api.ts');

export async function generateApiTypes(openApiJson: string): Promise<string> {
  // A build-time tool: loaded only when the types are generated or checked.
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(JSON.parse(openApiJson) as Parameters<typeof openapiTS>[0], { alphabetize: true });
  return `/**\n * The REST API's paths and schemas as TypeScript types, generated from libs/contracts/openapi.json.\n * Do not edit: \`npx arbiter openapi\` writes it (\`--check\` fails when it is stale).\n */\n${astToString(ast)}`;
}
