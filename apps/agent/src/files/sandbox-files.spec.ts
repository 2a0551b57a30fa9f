import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Files } from './files';
import { browse, confine, FilesError, modeString, read } from './sandbox-files';

const codeOf = (work: () => unknown): string | undefined => {
  try {
    work();
    return undefined;
  } catch (err) {
    return err instanceof FilesError ? err.code : `not a FilesError: ${(err as Error).message}`;
  }
};

describe('sandbox files', () => {
  let dir: string;
  let sandbox: string;
  let outside: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-files-'));
    sandbox = path.join(dir, 'sandbox');
    outside = path.join(dir, 'secret');
    fs.mkdirSync(path.join(sandbox, 'out', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(sandbox, 'stdout'), 'hello world\n');
    fs.writeFileSync(path.join(sandbox, 'out', 'deep', 'result.txt'), 'ok');
    fs.writeFileSync(outside, 'do not read');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("refuses '..' in any place, even one that would come back inside", () => {
    for (const p of ['..', '../secret', 'out/../../secret', 'out/../stdout', '/../secret'])
      expect([p, codeOf(() => confine(sandbox, p))]).toEqual([p, 'SANDBOX_PATH_INVALID']);
  });

  it('takes absolute-looking paths relative to the sandbox', () => {
    expect(confine(sandbox, '/stdout')).toBe(fs.realpathSync(path.join(sandbox, 'stdout')));
    expect(confine(sandbox, '')).toBe(fs.realpathSync(sandbox));
    expect(codeOf(() => read(sandbox, '/etc/passwd', 0))).toBe('SANDBOX_FILE_NOT_FOUND');
  });

  it('refuses a symbolic link that leads out of the sandbox, to a file or a directory, and through a linked folder', () => {
    fs.symlinkSync(outside, path.join(sandbox, 'escape'));
    fs.symlinkSync(dir, path.join(sandbox, 'up'));
    fs.symlinkSync('/', path.join(sandbox, 'root'));
    expect(codeOf(() => read(sandbox, 'escape', 0))).toBe('SANDBOX_PATH_INVALID');
    expect(codeOf(() => browse(sandbox, 'up'))).toBe('SANDBOX_PATH_INVALID');
    expect(codeOf(() => read(sandbox, 'up/secret', 0))).toBe('SANDBOX_PATH_INVALID');
    expect(codeOf(() => read(sandbox, 'root/etc/passwd', 0))).toBe('SANDBOX_PATH_INVALID');
  });

  it('follows a symbolic link that stays inside the sandbox', () => {
    fs.symlinkSync('out/deep/result.txt', path.join(sandbox, 'latest'));
    expect(Buffer.from(read(sandbox, 'latest', 0).data, 'base64').toString()).toBe('ok');
  });

  it('refuses a sandbox that is itself gone, and missing files, as not found', () => {
    expect(codeOf(() => read(sandbox, 'nope', 0))).toBe('SANDBOX_FILE_NOT_FOUND');
    expect(codeOf(() => read(sandbox, 'stdout/x', 0))).toBe('SANDBOX_FILE_NOT_FOUND');
    expect(codeOf(() => browse(path.join(dir, 'gone'), ''))).toBe('SANDBOX_FILE_NOT_FOUND');
  });

  it("lists a directory's entries sorted, with their types, sizes and modes, and a file's own entry", () => {
    fs.chmodSync(path.join(sandbox, 'stdout'), 0o640);
    const { entries, truncated } = browse(sandbox, '/');
    expect(truncated).toBe(false);
    expect(entries.map((e) => [e.path, e.type, e.size])).toEqual([
      ['out', 'directory', expect.any(Number)],
      ['stdout', 'file', 12],
    ]);
    expect(entries[1]?.mode).toBe('-rw-r-----');
    expect(browse(sandbox, 'out/deep').entries.map((e) => e.path)).toEqual(['out/deep/result.txt']);
    expect(browse(sandbox, 'stdout').entries).toEqual([expect.objectContaining({ path: 'stdout', type: 'file', size: 12 })]);
    expect(modeString('directory', 0o755)).toBe('drwxr-xr-x');
  });

  it("reads with Mesos's offset and length: offset -1 answers the size, a read stops at the end, past the end reads nothing", () => {
    const text = (r: { data: string }) => Buffer.from(r.data, 'base64').toString();
    expect(read(sandbox, 'stdout', -1)).toEqual({ data: '', offset: 12, size: 12 });
    expect(text(read(sandbox, 'stdout', 6, 5))).toBe('world');
    expect(text(read(sandbox, 'stdout', 6))).toBe('world\n');
    expect(read(sandbox, 'stdout', 100)).toEqual({ data: '', offset: 100, size: 12 });
    expect(codeOf(() => read(sandbox, 'out', 0))).toBe('SANDBOX_NOT_A_FILE');
  });

  it('does not hang on a FIFO left in the sandbox', () => {
    const fifo = path.join(sandbox, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(codeOf(() => read(sandbox, 'pipe', 0))).toBe('SANDBOX_NOT_A_FILE');
  });

  it('answers requests with stable codes, and refuses malformed ones', () => {
    const files = new Files(() => sandbox);
    const replies: unknown[] = [];
    files.read({ frameworkId: 'fw', taskId: 't', path: '../secret' }, (r) => replies.push(r));
    files.read({ frameworkId: 'fw', taskId: 't', path: 'stdout', offset: -2 }, (r) => replies.push(r));
    files.browse({ frameworkId: 'fw', taskId: 't' }, (r) => replies.push(r));
    new Files(() => path.join(dir, 'gone')).read({ frameworkId: 'fw', taskId: 't', path: 'stdout' }, (r) => replies.push(r));
    const codes = (replies as Array<{ ok: boolean; error?: { code: string } }>).map((r) => (r.ok ? 'ok' : r.error?.code));
    expect(codes).toEqual(['SANDBOX_PATH_INVALID', 'INVALID_MESSAGE', 'ok', 'SANDBOX_FILE_NOT_FOUND']);
  });
});
