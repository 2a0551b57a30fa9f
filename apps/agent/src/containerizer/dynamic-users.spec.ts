import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DYNAMIC_UID_BASE, DYNAMIC_UID_COUNT, DynamicUsers } from './dynamic-users';

describe('dynamic task users', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-dynamic-users-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives each framework a uid of its own from the range, the same after a restart', () => {
    const file = path.join(dir, 'task-users.json');
    const users = new DynamicUsers(file, () => false);
    const ids = Array.from({ length: 200 }, (_, i) => `fw-${i}`);
    const uids = ids.map((id) => users.of(id).uid);
    expect(new Set(uids).size).toBe(ids.length);
    for (const uid of uids) expect(uid >= DYNAMIC_UID_BASE && uid < DYNAMIC_UID_BASE + DYNAMIC_UID_COUNT).toBe(true);
    expect(users.of('fw-0')).toEqual({ name: `arbiter-${uids[0]}`, uid: uids[0], gid: uids[0], gids: [uids[0]] });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // A restarted agent reads them back, whatever the machine's users are meanwhile.
    const again = new DynamicUsers(file, () => true);
    expect(ids.map((id) => again.of(id).uid)).toEqual(uids);
  });

  it('passes over uids the machine knows and those of other frameworks, and says when none is left', () => {
    const first = new DynamicUsers(path.join(dir, 'a.json'), () => false).of('fw').uid;
    const known = new DynamicUsers(path.join(dir, 'b.json'), (id) => id === first);
    expect(known.of('fw').uid).not.toBe(first);
    const full = new DynamicUsers(path.join(dir, 'c.json'), () => true);
    expect(() => full.of('fw')).toThrow(`all ${DYNAMIC_UID_COUNT} dynamic task users of this agent are taken`);
  });
});
