import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Fetcher, FetchFailure } from './fetcher';

/** The fetcher against local files and the system's tar/zip (as the agent's own user). */
describe('Fetcher', () => {
  let dir: string;
  let sandbox: string;
  let fetcher: Fetcher;
  const me = { name: os.userInfo().username, uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const src = (...p: string[]) => path.join(dir, 'src', ...p);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fetcher-'));
    sandbox = path.join(dir, 'sandbox');
    fs.mkdirSync(sandbox);
    fs.mkdirSync(src('app', 'bin'), { recursive: true });
    fs.writeFileSync(src('app', 'bin', 'run.sh'), '#!/bin/sh\necho run\n');
    fetcher = new Fetcher(dir, { cacheBytes: 1 << 20 });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const tar = (name: string, ...args: string[]) => execFileSync('tar', ['-C', src(), ...args, '-f', src(name), 'app']);

  it('places a file, executable, under its outputFile, and unpacks tar.gz, tar.bz2, tar.xz and zip archives', async () => {
    tar('app.tar.gz', '-cz');
    tar('app.tar.bz2', '-cj');
    tar('app.tar.xz', '-cJ');
    execFileSync('zip', ['-qr', src('app.zip'), 'app'], { cwd: src() });
    const report = await fetcher.fetch(
      [
        { value: `file://${src('app', 'bin', 'run.sh')}`, executable: true, outputFile: 'tools/run' },
        { value: src('app.tar.gz'), extract: true },
        { value: src('app.tar.bz2'), extract: true, outputFile: 'b/app.tar.bz2' },
        { value: src('app.tar.xz'), extract: true },
        { value: src('app.zip'), extract: true },
      ],
      sandbox,
      me,
    );
    expect(report.uris.map((u) => u.file)).toEqual(['tools/run', 'app.tar.gz', 'b/app.tar.bz2', 'app.tar.xz', 'app.zip']);
    expect(fs.statSync(path.join(sandbox, 'tools', 'run')).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(path.join(sandbox, 'app', 'bin', 'run.sh'), 'utf8')).toContain('echo run');
    expect(report.uris[1].extracted).toBeGreaterThan(0);
    expect(fs.readdirSync(sandbox).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('refuses an archive entry climbing out (../) before anything is unpacked', async () => {
    execFileSync('tar', ['-C', src(), '-cz', '--transform', 's,^app,../escaped,', '-f', src('bad.tgz'), 'app'], { stdio: 'ignore' });
    const failed = fetcher.fetch([{ value: src('bad.tgz'), extract: true }], sandbox, me);
    await expect(failed).rejects.toThrow(FetchFailure);
    await expect(failed).rejects.toThrow(/could not fetch .*bad\.tgz: the archive entry "\.\.\/escaped\/" leaves the sandbox/);
    expect(fs.existsSync(path.join(dir, 'escaped'))).toBe(false);
    expect(fs.readdirSync(sandbox)).toEqual(['bad.tgz']);
  });

  it('refuses an archive whose symbolic link points out of the sandbox', async () => {
    fs.symlinkSync('/etc', src('app', 'etc'));
    tar('link.tar', '-c');
    await expect(fetcher.fetch([{ value: src('link.tar'), extract: true }], sandbox, me)).rejects.toThrow(
      'the archive entry "app/etc" is a link out of the sandbox (/etc)',
    );
    expect(fs.existsSync(path.join(sandbox, 'app'))).toBe(false);
  });

  it('refuses an outputFile leaving the sandbox, a missing file and an unsupported scheme, naming the URI', async () => {
    const file = src('app', 'bin', 'run.sh');
    await expect(fetcher.fetch([{ value: file, outputFile: '../x' }], sandbox, me)).rejects.toThrow(
      `could not fetch ${file}: the outputFile "../x" leaves the sandbox`,
    );
    await expect(fetcher.fetch([{ value: src('nope') }], sandbox, me)).rejects.toThrow(`could not fetch ${src('nope')}:`);
    await expect(fetcher.fetch([{ value: 'ftp://h/x' }], sandbox, me)).rejects.toThrow('the scheme ftp is not supported');
    expect(fs.readdirSync(sandbox)).toEqual([]);
  });

  it('serves a cached URI from the cache the second time, with its digest', async () => {
    const uri = { value: src('app', 'bin', 'run.sh'), cache: true };
    const first = await fetcher.fetch([uri], sandbox, me);
    const other = path.join(dir, 'sandbox2');
    fs.mkdirSync(other);
    const second = await fetcher.fetch([uri], other, me);
    expect([first.uris[0].cacheHit, second.uris[0].cacheHit]).toEqual([false, true]);
    expect(second.uris[0].digest).toMatch(/^[0-9a-f]{64}$/);
    expect(fetcher.cache.downloads).toBe(1);
    expect(fs.readFileSync(path.join(other, 'run.sh'), 'utf8')).toContain('echo run');
  });

  it("unpacks a cached archive's later hits from its kept tree: the same files, modes and times; each sandbox's its own", async () => {
    fs.chmodSync(src('app', 'bin', 'run.sh'), 0o750);
    fs.symlinkSync('run.sh', src('app', 'bin', 'link'));
    tar('app.tar.gz', '-cz');
    const uri = { value: src('app.tar.gz'), cache: true, extract: true };
    const first = await fetcher.fetch([uri], sandbox, me);
    expect(fetcher.trees.size).toBeGreaterThan(0);
    const other = path.join(dir, 'sandbox2');
    fs.mkdirSync(other);
    // tar is not on the PATH for the hit: the tree is copied, no tool runs.
    const pathBefore = process.env.PATH;
    process.env.PATH = '/nonexistent';
    const second = await fetcher.fetch([uri], other, me).finally(() => (process.env.PATH = pathBefore));
    expect([first.uris[0].extracted, second.uris[0].extracted, second.uris[0].cacheHit]).toEqual([3 + 1, 3 + 1, true]);
    const stat = (root: string, ...p: string[]) => fs.lstatSync(path.join(root, ...p));
    for (const p of [['app', 'bin', 'run.sh'], ['app', 'bin'], ['app']]) {
      const [a, b] = [stat(sandbox, ...p), stat(other, ...p)];
      expect([b.mode, b.uid, b.mtimeMs]).toEqual([a.mode, a.uid, a.mtimeMs]);
    }
    expect(fs.readlinkSync(path.join(other, 'app', 'bin', 'link'))).toBe('run.sh');
    // A task changing its copy changes neither the other sandbox's nor the next one's.
    fs.writeFileSync(path.join(other, 'app', 'bin', 'run.sh'), 'changed');
    const third = path.join(dir, 'sandbox3');
    fs.mkdirSync(third);
    await fetcher.fetch([uri], third, me);
    for (const root of [sandbox, third]) expect(fs.readFileSync(path.join(root, 'app', 'bin', 'run.sh'), 'utf8')).toContain('echo run');
  });
});
