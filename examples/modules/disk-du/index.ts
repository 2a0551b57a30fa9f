/**
 * An isolator module (agent:isolator) like Mesos's `disk/du`: while a task runs, its sandbox is
 * measured with `du -sk` (off the event loop) and the task ends TASK_FAILED with
 * REASON_CONTAINER_LIMITATION_DISK once it holds more than its limit: the task's own `disk`
 * resource when it has one, else the `limitMb` parameter. `prepare` writes the limit into the
 * sandbox (`.disk-limit`) so that the task can read it; `cleanup` has nothing to release.
 *
 * Parameters: `{ "limitMb": 64 }`. Only type imports: it runs as plain JavaScript once its types
 * are stripped, wherever it is installed.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ArbiterModule, ModuleContainer, ModuleLimitation } from '@arbiter/modules';

function duKiB(dir: string): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile('du', ['-sk', dir], (err, stdout) =>
      err ? reject(new Error(`du ${dir}: ${err.message}`)) : resolve(Number(stdout.split(/\s/)[0])),
    ),
  );
}

const diskDu: ArbiterModule = {
  name: 'disk-du',
  apiVersion: 1,
  points: ['agent:isolator'],
  create(parameters, context) {
    const limitMb = parameters.limitMb;
    if (typeof limitMb !== 'number' || !(limitMb > 0)) throw new Error('limitMb must be a number of MB above 0');
    const limitOf = (c: ModuleContainer) => c.limits.diskBytes ?? limitMb * 1024 * 1024;
    context.log('disk-du ready', { limitMb });
    return {
      isolator: {
        prepare(c: ModuleContainer) {
          fs.writeFileSync(path.join(c.sandbox, '.disk-limit'), `${limitOf(c)}\n`);
        },
        async watch(c: ModuleContainer): Promise<ModuleLimitation | undefined> {
          const used = (await duKiB(c.sandbox)) * 1024;
          const limit = limitOf(c);
          if (used <= limit) return undefined;
          const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
          return {
            reason: 'REASON_CONTAINER_LIMITATION_DISK',
            message: `disk quota exceeded: the sandbox holds ${mb(used)} of ${mb(limit)}`,
          };
        },
      },
    };
  },
};

export default diskDu;
