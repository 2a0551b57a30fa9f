import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FetchCache } from './cache';

describe('FetchCache', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fetch-cache-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const filler = (content: string) => (tmp: string) => {
    fs.writeFileSync(tmp, content);
    return Promise.resolve({ bytes: content.length, digest: 'd' });
  };

  it('downloads once for concurrent requests of one key, then serves hits', async () => {
    const cache = new FetchCache(dir, 1000);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fill = async (tmp: string) => {
      await gate;
      return filler('abc')(tmp);
    };
    const key = FetchCache.keyOf('alice', 'http://h/a');
    const both = Promise.all([cache.get(key, fill), cache.get(key, fill)]);
    release();
    const [a, b] = await both;
    expect(cache.downloads).toBe(1);
    expect(fs.readFileSync(a.file, 'utf8')).toBe('abc');
    expect(b.file).toBe(a.file);
    const c = await cache.get(key, fill);
    expect(c.hit).toBe(true);
    expect(cache.downloads).toBe(1);
    [a, b, c].forEach((h) => h.release());
  });

  it('keys by user: another user downloads again', () => {
    expect(FetchCache.keyOf('alice', 'file:///x')).not.toBe(FetchCache.keyOf('bob', 'file:///x'));
  });

  it('evicts the least recently used beyond its size, never a pinned file, and keeps no file larger than itself', async () => {
    const cache = new FetchCache(dir, 10);
    const [k1, k2, k3, big] = ['1', '2', '3', 'big'].map((u) => FetchCache.keyOf('u', u));
    (await cache.get(k1, filler('aaaa'))).release();
    (await cache.get(k2, filler('bbbb'))).release();
    (await cache.get(k1, filler('aaaa'))).release(); // k1 now most recently used
    const pinned = await cache.get(k1, filler('aaaa'));
    (await cache.get(k3, filler('cccc'))).release();
    expect([cache.has(k1), cache.has(k2), cache.has(k3)]).toEqual([true, false, true]);
    expect(cache.size).toBe(8);
    const large = await cache.get(big, filler('x'.repeat(20)));
    expect(cache.has(big)).toBe(false);
    expect(fs.readFileSync(large.file, 'utf8')).toHaveLength(20);
    large.release();
    expect(fs.existsSync(large.file)).toBe(false);
    expect(fs.existsSync(pinned.file)).toBe(true);
    pinned.release();
    fs.writeFileSync(path.join(dir, `${k1}.partial-0a0b`), 'half');
    fs.writeFileSync(path.join(dir, 'operator-notes.txt'), 'not the cache');
    expect(new FetchCache(dir, 10).size).toBe(8);
    expect(fs.readdirSync(dir).sort()).toEqual([k1, k3, 'operator-notes.txt'].sort());
  });

  it('a failed download leaves nothing and is retried on the next request', async () => {
    const cache = new FetchCache(dir, 100);
    const key = FetchCache.keyOf('u', 'x');
    await expect(cache.get(key, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(cache.has(key)).toBe(false);
    (await cache.get(key, filler('ok'))).release();
    expect(cache.downloads).toBe(2);
  });
});
