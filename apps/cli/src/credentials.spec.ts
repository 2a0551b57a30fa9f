import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CredentialsError, configTokenPath, resolveToken, type TokenWhere } from './credentials';

describe('resolveToken', () => {
  let dir: string;
  let warnings: string[];
  const where = (over: Partial<TokenWhere> = {}): TokenWhere => ({
    env: {},
    home: path.join(dir, 'home'),
    cwd: path.join(dir, 'cwd'),
    warn: (line) => warnings.push(line),
    ...over,
  });
  const write = (file: string, text: string, mode = 0o600) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-cli-token-'));
    warnings = [];
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads --token-file first, taking its first line', async () => {
    const file = path.join(dir, 'token');
    write(file, 'arb_from_file\nsecond line\n');
    const got = await resolveToken({ tokenFile: file, token: 'arb_flag' }, where({ env: { ARBITER_TOKEN: 'arb_env' } }));
    expect(got).toEqual({ token: 'arb_from_file', source: 'token-file' });
    expect(warnings).toEqual([]);
  });

  it('reads ARBITER_TOKEN_FILE when no flag names a file', async () => {
    const file = path.join(dir, 'token');
    write(file, 'arb_env_file');
    await expect(resolveToken({}, where({ env: { ARBITER_TOKEN_FILE: file, ARBITER_TOKEN: 'arb_env' } }))).resolves.toEqual({
      token: 'arb_env_file',
      source: 'token-file',
    });
  });

  it('says which file it could not read, or that it is empty', async () => {
    await expect(resolveToken({ tokenFile: path.join(dir, 'missing') }, where())).rejects.toThrow(/--token-file: ENOENT/);
    const empty = path.join(dir, 'empty');
    write(empty, '\n');
    await expect(resolveToken({ tokenFile: empty }, where())).rejects.toThrow(/is empty/);
  });

  it('accepts --token with a warning about the process list', async () => {
    await expect(resolveToken({ token: 'arb_flag' }, where({ env: { ARBITER_TOKEN: 'arb_env' } }))).resolves.toEqual({
      token: 'arb_flag',
      source: 'flag',
    });
    expect(warnings).toEqual([expect.stringMatching(/process list/)]);
  });

  it('takes the environment before any file on disk', async () => {
    write(configTokenPath({}, path.join(dir, 'home')), 'arb_config');
    await expect(resolveToken({}, where({ env: { ARBITER_ADMIN_TOKEN: 'arb_admin_env' } }))).resolves.toEqual({
      token: 'arb_admin_env',
      source: 'env',
    });
  });

  it("reads the user's configuration, honouring XDG_CONFIG_HOME, and refuses one others can read", async () => {
    const xdg = path.join(dir, 'xdg');
    write(path.join(xdg, 'arbiter', 'token'), 'arb_config');
    await expect(resolveToken({}, where({ env: { XDG_CONFIG_HOME: xdg } }))).resolves.toEqual({ token: 'arb_config', source: 'config' });
    fs.chmodSync(path.join(xdg, 'arbiter', 'token'), 0o644);
    await expect(resolveToken({}, where({ env: { XDG_CONFIG_HOME: xdg } }))).rejects.toThrow(/other users .*mode 644.*chmod 600/);
  });

  it('falls back to the admin token a local start keeps in its data directory', async () => {
    write(path.join(dir, 'cwd', '.arbiter', 'admin-token'), 'arb_local\n');
    await expect(resolveToken({}, where())).resolves.toEqual({ token: 'arb_local', source: 'data-dir' });
    write(path.join(dir, 'data', 'admin-token'), 'arb_data_dir');
    await expect(resolveToken({}, where({ env: { ARBITER_DATA_DIR: path.join(dir, 'data') } }))).resolves.toEqual({
      token: 'arb_data_dir',
      source: 'data-dir',
    });
  });

  it('asks on a terminal last, and refuses with every way to give a token when there is none', async () => {
    const asked: string[] = [];
    const prompt = (q: string) => {
      asked.push(q);
      return Promise.resolve('  arb_typed \n');
    };
    await expect(resolveToken({}, where({ prompt }))).resolves.toEqual({ token: 'arb_typed', source: 'prompt' });
    expect(asked).toEqual(['API token: ']);
    const refused = resolveToken({}, where({ prompt: () => Promise.resolve('') }));
    await expect(refused).rejects.toBeInstanceOf(CredentialsError);
    await expect(resolveToken({}, where())).rejects.toThrow(/--token-file FILE, set ARBITER_TOKEN .*\.config\/arbiter\/token/);
  });
});
