/**
 * Dynamic task users: a uid and gid of its own for each framework whose tasks name no user (or
 * `nobody`), so that two frameworks never share one without any setting on the agent. Like
 * systemd's DynamicUser they need no /etc/passwd entry. They come from a fixed range above every
 * range systemd allocates (system and regular users, DynamicUser 61184-65519, nspawn containers
 * 524288-1879048191): uids and gids 1879048192 (0x70000000) to 1879113727, 65,536 of them. A
 * framework's slot is derived from its id (a hash), the next free one when that is taken (by
 * another framework of this agent, or a uid or gid the machine knows), and recorded in the
 * work directory, so it stays the same across agent restarts. Slots are never given to another
 * framework, so files a framework's tasks leave stay out of other frameworks' reach.
 */
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { OsUser } from './users';

export const DYNAMIC_UID_BASE = 0x70000000;
export const DYNAMIC_UID_COUNT = 0x10000;

/** Whether the machine already knows this uid or gid (through NSS: files, LDAP, ...). */
export function knownId(id: number): boolean {
  const known = (db: string) => {
    try {
      execFileSync('getent', [db, String(id)], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  return known('passwd') || known('group');
}

/** The dynamic user of a uid from the range. */
export const dynamicUser = (uid: number): OsUser => ({ name: `arbiter-${uid}`, uid, gid: uid, gids: [uid] });

export const isDynamic = (uid: number) => uid >= DYNAMIC_UID_BASE && uid < DYNAMIC_UID_BASE + DYNAMIC_UID_COUNT;

/** Every uid of the range is taken. */
export class NoDynamicUserLeft extends Error {}

export class DynamicUsers {
  private readonly byFramework = new Map<string, number>();
  private readonly used = new Set<number>();

  /** `file`: where the allocations are recorded (agent-only, 0600). */
  constructor(
    private readonly file: string,
    private readonly taken: (id: number) => boolean = knownId,
  ) {
    let recorded: Record<string, number> = {};
    try {
      recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
    } catch {
      // None yet.
    }
    for (const [frameworkId, uid] of Object.entries(recorded)) {
      if (!Number.isInteger(uid) || !isDynamic(uid)) continue;
      this.byFramework.set(frameworkId, uid);
      this.used.add(uid);
    }
  }

  /** The framework's dynamic user, allocated (and recorded) on first use; throws NoDynamicUserLeft when the range is full, or what recording it met. */
  of(frameworkId: string): OsUser {
    let uid = this.byFramework.get(frameworkId);
    if (uid === undefined) {
      uid = this.allocate(frameworkId);
      this.byFramework.set(frameworkId, uid);
      this.used.add(uid);
      this.save();
    }
    return dynamicUser(uid);
  }

  private allocate(frameworkId: string): number {
    const start = crypto.createHash('sha256').update(frameworkId).digest().readUInt32BE(0) % DYNAMIC_UID_COUNT;
    for (let i = 0; i < DYNAMIC_UID_COUNT; i++) {
      const uid = DYNAMIC_UID_BASE + ((start + i) % DYNAMIC_UID_COUNT);
      if (!this.used.has(uid) && !this.taken(uid)) return uid;
    }
    throw new NoDynamicUserLeft(`all ${DYNAMIC_UID_COUNT} dynamic task users of this agent are taken`);
  }

  private save(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.byFramework)), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}
