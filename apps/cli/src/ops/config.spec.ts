import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { configPath, parseConfig, resolveConnection } from './config';
import { UsageError } from './errors';
import { parseSince } from './output';

describe('the CLI configuration file', () => {
  it('reads key = value lines, comments and blank lines skipped', () => {
    const text = '# my cluster\nmaster = http://cp-1:8080,http://cp-2:8080  # both replicas\n\ntoken-file = ~/.arbiter-token\n';
    expect(parseConfig(text, 'f')).toEqual({ master: 'http://cp-1:8080,http://cp-2:8080', 'token-file': '~/.arbiter-token' });
  });

  it('applies a [profile] over the lines before the first section', () => {
    const text = 'ca = /etc/ca.pem\nmaster = http://dev:8080\n[prod]\nmaster = https://prod:8443\n[dev]\ntoken-file = /dev-token\n';
    expect(parseConfig(text, 'f')).toEqual({ ca: '/etc/ca.pem', master: 'http://dev:8080' });
    expect(parseConfig(text, 'f', 'prod')).toEqual({ ca: '/etc/ca.pem', master: 'https://prod:8443' });
    expect(() => parseConfig(text, 'f', 'staging')).toThrow('f has no [staging] profile (it has prod, dev)');
  });

  it('refuses an unknown key or a line that is no key = value, naming the line', () => {
    expect(() => parseConfig('master = x\ntoken = secret\n', 'cfg')).toThrow(
      new UsageError("cfg:2: unknown key 'token' (known: master, token-file, ca)"),
    );
    expect(() => parseConfig('master http://x\n', 'cfg')).toThrow("cfg:1: expected 'key = value' or '[profile]'");
  });
});

describe('resolveConnection: flags, then environment, then the configuration file', () => {
  let home: string;
  const write = (text: string, env: NodeJS.ProcessEnv = {}) => {
    const file = configPath(env, home);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  };
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-cli-config-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('lives in $XDG_CONFIG_HOME/arbiter/config, else ~/.config/arbiter/config', () => {
    expect(configPath({}, '/home/u')).toBe('/home/u/.config/arbiter/config');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' }, '/home/u')).toBe('/xdg/arbiter/config');
  });

  it('takes the master from the flag over ARBITER_MASTER over ARBITER_URL over the file', () => {
    write('master = http://from-file:1\n');
    expect(resolveConnection({ master: 'http://flag:1' }, { ARBITER_MASTER: 'http://env:1' }, home)).toMatchObject({
      master: 'http://flag:1',
      masterFrom: 'flag',
    });
    expect(resolveConnection({}, { ARBITER_MASTER: 'http://env:1', ARBITER_URL: 'http://url:1' }, home)).toMatchObject({
      master: 'http://env:1',
      masterFrom: 'env',
    });
    expect(resolveConnection({}, { ARBITER_URL: 'http://url:1' }, home)).toMatchObject({ master: 'http://url:1' });
    expect(resolveConnection({}, {}, home)).toMatchObject({ master: 'http://from-file:1', masterFrom: 'config' });
  });

  it('honours XDG_CONFIG_HOME', () => {
    const env = { XDG_CONFIG_HOME: path.join(home, 'xdg') };
    write('master = http://xdg:1\n', env);
    expect(resolveConnection({}, env, home).master).toBe('http://xdg:1');
  });

  it("uses the file's token-file (~ expanded) only when neither flags nor environment give a token", () => {
    write('master = http://m:1\ntoken-file = ~/tok\nca = ~/ca.pem\n');
    expect(resolveConnection({}, {}, home)).toMatchObject({
      tokenFlags: { tokenFile: path.join(home, 'tok') },
      ca: path.join(home, 'ca.pem'),
    });
    expect(resolveConnection({}, { ARBITER_TOKEN: 'arb_env' }, home).tokenFlags).toEqual({});
    expect(resolveConnection({ tokenFile: '/flag-tok' }, {}, home).tokenFlags).toEqual({ tokenFile: '/flag-tok' });
    expect(resolveConnection({}, { ARBITER_CA_FILE: '/env-ca' }, home).ca).toBe('/env-ca');
  });

  it('picks a profile with --profile or ARBITER_PROFILE', () => {
    write('master = http://default:1\n[prod]\nmaster = http://prod:1\n');
    expect(resolveConnection({ profile: 'prod' }, {}, home).master).toBe('http://prod:1');
    expect(resolveConnection({}, { ARBITER_PROFILE: 'prod' }, home).master).toBe('http://prod:1');
  });

  it('says every way to give a master when none is given', () => {
    expect(() => resolveConnection({}, {}, home)).toThrow(
      `no control plane given: pass --master URL, set ARBITER_MASTER, or write 'master = URL' in ${configPath({}, home)}`,
    );
    expect(() => resolveConnection({ profile: 'prod' }, {}, home)).toThrow(`--profile prod: there is no ${configPath({}, home)}`);
  });
});

describe('parseSince', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  it('reads a duration back from now or a date', () => {
    expect(parseSince('90s', '--since', now)).toBe('2026-11-27T11:58:30.000Z');
    expect(parseSince('2h', '--since', now)).toBe('2026-11-27T10:00:00.000Z');
    expect(parseSince('7d', '--since', now)).toBe('2026-11-20T12:00:00.000Z');
    expect(parseSince('2026-11-01', '--since', now)).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('2026-11-01T10:30:00Z', '--since', now)).toBe('2026-11-01T10:30:00.000Z');
  });
  it('refuses anything else as a usage error', () => {
    expect(() => parseSince('yesterday')).toThrow(UsageError);
    expect(() => parseSince('10 minutes')).toThrow("--since: '10 minutes' must be a duration back from now");
  });
});
