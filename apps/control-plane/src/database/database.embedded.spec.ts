import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { reachableBy } from './database.embedded';

describe('reachableBy', () => {
  let root: string;
  beforeEach(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-reach-'))));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const owner = () => {
    const st = fs.statSync(root);
    return { uid: st.uid, gids: [st.gid] };
  };
  const stranger = { uid: 999_999, gids: [999_999] };

  it('refuses a path under a directory only its owner may enter, as a home of mode 700 is', () => {
    const home = path.join(root, 'home');
    fs.mkdirSync(path.join(home, 'clone', 'node_modules'), { recursive: true });
    fs.chmodSync(root, 0o755);
    fs.chmodSync(home, 0o700);
    expect(reachableBy(stranger, path.join(home, 'clone', 'node_modules'))).toBe(false);
    expect(reachableBy(null, path.join(home, 'clone', 'not-yet-made'))).toBe(false);
    expect(reachableBy(owner(), path.join(home, 'clone', 'node_modules'))).toBe(true);
  });

  it('allows a path whose every directory others may search', () => {
    const data = path.join(root, 'a', 'b');
    fs.mkdirSync(data, { recursive: true });
    for (const dir of [root, path.join(root, 'a'), data]) fs.chmodSync(dir, 0o711);
    expect(reachableBy(stranger, data)).toBe(true);
    expect(reachableBy(null, path.join(data, 'postgres'))).toBe(true);
  });

  it('uses the group bits for a member of the directory group', () => {
    const dir = path.join(root, 'group-only');
    fs.mkdirSync(dir);
    fs.chmodSync(root, 0o755);
    fs.chmodSync(dir, 0o710);
    const gid = fs.statSync(dir).gid;
    expect(reachableBy({ uid: 999_999, gids: [gid] }, dir)).toBe(true);
    expect(reachableBy(stranger, dir)).toBe(false);
  });
});
