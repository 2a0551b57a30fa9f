/**
 * `arbiter openapi [--check]`: writes the control plane's OpenAPI document, generated from its
 * controllers and DTOs, to libs/contracts/openapi.json; `--check` fails when the committed
 * file differs from the code instead of writing it.
 */
import * as fs from 'node:fs';
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('openapi')
    .description('write the OpenAPI document to libs/contracts/openapi.json (--check: fail when it is stale)')
    .option('--check', 'compare instead of writing')
    .action(async (opts: { check?: boolean }) => {
      const cp: typeof import('@arbiter/control-plane') = require('@arbiter/control-plane');
      const json = await cp.generateOpenApiJson();
      const current = fs.existsSync(cp.OPENAPI_FILE) ? fs.readFileSync(cp.OPENAPI_FILE, 'utf8') : '';
      if (opts.check) {
        if (current === json) console.log(`${cp.OPENAPI_FILE} is up to date`);
        else {
          console.error(`${cp.OPENAPI_FILE} differs from the code; run \`npx arbiter openapi\` and commit it`);
          process.exitCode = 1;
        }
        return;
      }
      fs.writeFileSync(cp.OPENAPI_FILE, json);
      console.log(current === json ? `${cp.OPENAPI_FILE} unchanged` : `wrote ${cp.OPENAPI_FILE}`);
    });
}
