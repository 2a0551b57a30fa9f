import * as fs from 'node:fs';
import { OPENAPI_FILE } from '../../../src/app/openapi';
import { generateOpenApiJson } from '../../../src/server';
import { startTestControlPlane, type TestControlPlane } from '../../support/app';
import { arrayContaining } from '../../support/matchers';

describe('OpenAPI', () => {
  it('libs/contracts/openapi.json matches the code (regenerate with `npx arbiter openapi`)', async () => {
    expect(fs.readFileSync(OPENAPI_FILE, 'utf8')).toBe(await generateOpenApiJson());
  });

  describe('served', () => {
    let t: TestControlPlane;
    beforeAll(async () => (t = await startTestControlPlane()));
    afterAll(() => t.close());

    it('serves the committed document at /api/docs-json and Swagger UI at /api/docs, without a token', async () => {
      const json = await t.request('GET', '/api/docs-json', undefined, { token: null });
      expect(json.status).toBe(200);
      expect(json.body).toEqual(JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')));
      const ui = await t.request('GET', '/api/docs', undefined, { token: null });
      expect(ui.status).toBe(200);
      expect(ui.body).toMatch(/swagger-ui/i);
      // swagger-ui-express's page: its init script carries the document, its assets are served beside it.
      const init = await t.request('GET', '/api/docs/swagger-ui-init.js', undefined, { token: null });
      expect(init.status).toBe(200);
      expect(init.body).toContain('"Arbiter control plane"');
      const bundle = await t.request('GET', '/api/docs/swagger-ui-bundle.js', undefined, { token: null });
      expect(bundle.status).toBe(200);
    });

    it('documents every /api/v1 operation with bearer auth and the error body', () => {
      const doc = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as {
        paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
        components: { schemas: { ErrorDto: { required: string[] } } };
      };
      const ops = Object.entries(doc.paths).filter(([p]) => p.startsWith('/api/v1/'));
      expect(ops.length).toBeGreaterThan(3);
      for (const [, methods] of ops) {
        for (const op of Object.values(methods)) {
          expect(op.security).toEqual([{ bearer: [] }]);
          expect(op.responses['401']).toBeDefined();
        }
      }
      expect(doc.components.schemas.ErrorDto.required).toEqual(arrayContaining(['statusCode', 'code', 'message', 'details']));
    });
  });
});
