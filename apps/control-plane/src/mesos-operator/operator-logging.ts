/**
 * The operator API's logging level, as Mesos's: a glog verbosity (0 the configured level; 1 and
 * above more detail: `debug`, 2 and above `trace`), raised for a duration and then put back.
 * Process-wide, as a Mesos master's is.
 */
import { raiseLogLevel } from '../app/logging';

let verbosity = 0;
let reset: NodeJS.Timeout | undefined;

export const operatorLogLevel = (): number => verbosity;

export function setOperatorLogLevel(level: number, seconds: number): void {
  if (reset) clearTimeout(reset);
  reset = undefined;
  verbosity = level;
  raiseLogLevel(level === 0 ? null : level === 1 ? 'debug' : 'trace');
  if (level !== 0) {
    reset = setTimeout(() => {
      verbosity = 0;
      raiseLogLevel(null);
    }, seconds * 1000);
    reset.unref();
  }
}
