/** Temporary data directories of test control planes, and their removal without a trace. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A new, empty directory in the system's temporary directory. */
export function makeDataDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Removes a data directory and, when the tests run as root, the place its embedded PostgreSQL
 * data was moved to for the postgres user (`dir/postgres` is then a link to
 * /var/lib/arbiter/data-<hash>/postgres; see placeForPostgresUser).
 */
export function removeDataDir(dir: string): void {
  const link = path.join(dir, 'postgres');
  if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) {
    fs.rmSync(path.dirname(fs.readlinkSync(link)), { recursive: true, force: true });
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
