/** The OS users tasks run as, and whether they can reach a path. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** An OS user's ids. */
export interface OsUser {
  name: string;
  uid: number;
  gid: number;
  gids: number[];
}

/** OS users by name (through `id`, so NSS users count too), cached. */
export class TaskUsers {
  private readonly cache = new Map<string, OsUser | null>();

  lookup(name: string): OsUser | null {
    let user = this.cache.get(name);
    if (user === undefined) {
      try {
        const ids = (flag: string) => execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
        user = { name, uid: Number(ids('-u')), gid: Number(ids('-g')), gids: ids('-G').split(/\s+/).map(Number) };
      } catch {
        user = null;
      }
      this.cache.set(name, user);
    }
    return user;
  }
}

/**
 * Whether `user` may reach `target`: search (x) permission on every directory from the root
 * down to it. A path that does not exist yet is judged by its nearest existing ancestor.
 */
export function reachableBy(user: { uid: number; gids: number[] }, target: string): boolean {
  let dir = path.resolve(target);
  while (!fs.existsSync(dir)) dir = path.dirname(dir);
  for (let at = dir; ; at = path.dirname(at)) {
    const st = fs.statSync(at);
    const bit = user.uid === st.uid ? 0o100 : user.gids.includes(st.gid) ? 0o010 : 0o001;
    if (st.isDirectory() && !(st.mode & bit) && user.uid !== 0) return false;
    if (at === path.dirname(at)) return true;
  }
}
