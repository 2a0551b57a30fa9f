import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SLICE_BYTES, UnpackedTrees } from './trees';

describe('UnpackedTrees', () => {
  let dir: string;
  const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trees-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A folder as an archive unpacked to: `bytes` in one file. */
  const unpacked = (name: string, bytes: number) => {
    const at = path.join(dir, name);
    fs.mkdirSync(path.join(at, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(at, 'sub', 'file'), Buffer.alloc(bytes, 1));
    return at;
  };
  const copy = async (trees: UnpackedTrees, id: string) => {
    const into = fs.mkdtempSync(path.join(dir, 'into-'));
    return { entries: await trees.copyInto(id, into, me), into };
  };

  it('keeps trees within its bytes, least recently used out first, and copies a kept one', async () => {
    const trees = new UnpackedTrees(path.join(dir, 'trees'), 1000);
    await trees.keep('a', unpacked('a', 600), 2);
    expect(trees.size).toBe(600);
    const a = await copy(trees, 'a');
    expect(a.entries).toBe(2);
    expect(fs.readFileSync(path.join(a.into, 'sub', 'file')).length).toBe(600);
    await trees.keep('b', unpacked('b', 300), 2);
    await trees.keep('c', unpacked('c', 500), 2);
    // a (least recently used) went for c; b stays.
    expect([(await copy(trees, 'a')).entries, (await copy(trees, 'b')).entries, (await copy(trees, 'c')).entries]).toEqual([
      undefined,
      2,
      2,
    ]);
    expect(trees.size).toBe(800);
    // Larger than the whole: not kept.
    await trees.keep('d', unpacked('d', 2000), 2);
    expect((await copy(trees, 'd')).entries).toBeUndefined();
  });

  it('starts empty: what an earlier agent kept is removed', async () => {
    const at = path.join(dir, 'trees');
    await new UnpackedTrees(at, 1000).keep('a', unpacked('a', 10), 2);
    expect(fs.readdirSync(at)).toHaveLength(1);
    const again = new UnpackedTrees(at, 1000);
    expect([fs.readdirSync(at), again.size, (await copy(again, 'a')).entries]).toEqual([[], 0, undefined]);
  });

  it('copies a small tree without waiting for a turn of the event loop, a large one in slices between turns', async () => {
    /** Whether the event loop turned (a callback queued before ran) while `id` was copied. */
    const turnedDuring = async (trees: UnpackedTrees, id: string) => {
      let turned = false;
      setImmediate(() => (turned = true));
      const copied = await copy(trees, id);
      return { turned, copied };
    };
    const trees = new UnpackedTrees(path.join(dir, 'trees'), 4 * SLICE_BYTES);
    await trees.keep('small', unpacked('small', 1000), 2);
    expect((await turnedDuring(trees, 'small')).turned).toBe(false);

    const at = path.join(dir, 'big');
    fs.mkdirSync(path.join(at, 'sub'), { recursive: true });
    const files = ['one', 'two', 'sub/three'].map((f, i) => [f, Buffer.alloc(SLICE_BYTES / 2 + 1, i + 1)] as const);
    for (const [f, content] of files) fs.writeFileSync(path.join(at, f), content);
    await trees.keep('big', at, 4);
    const big = await turnedDuring(trees, 'big');
    expect(big.turned).toBe(true);
    expect(big.copied.entries).toBe(4);
    for (const [f, content] of files) expect(fs.readFileSync(path.join(big.copied.into, f)).equals(content)).toBe(true);
  });
});
