/**
 * `arbiter openapi [--check]`: writes the control plane's OpenAPI document, generated from its
 * controllers and DTOs, to libs/contracts/openapi.json, and the TypeScript types generated from
 * it to libs/contracts/src/api.ts; `--check` fails when a committed file differs from the code
 * instead of writing it.
 */
import * as fs from 'node:fs';
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('openapi')
    .description(
      'write the OpenAPI document (libs/contracts/openapi.json) and its TypeScript types (libs/contracts/src/api.ts); --check: fail when they are stale',
    )
    .option('--check', 'compare instead of writing')
    .action(async (opts: { check?: boolean }) => {
      const cp = await import('@arbiter/control-plane');
      const json = await cp.generateOpenApiJson();
      const files: Array<[string, string]> = [
        [cp.OPENAPI_FILE, json],
        [cp.API_TYPES_FILE, await cp.generateApiTypes(json)],
      ];
      for (const [file, content] of files) {
        const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
        if (opts.check) {
          if (current === content) console.log(`${file} is up to date`);
          else {
            console.error(`${file} differs from the code; run \`npx arbiter openapi\` and commit it`);
            process.exitCode = 1;
          }
        } else {
          fs.writeFileSync(file, content);
          console.log(current === content ? `${file} unchanged` : `wrote ${file}`);
        }
      }
    });
}
