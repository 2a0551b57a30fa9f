/**
 * Programs written against mesos-go (Debian's golang-github-mesos-mesos-go-dev, v0.0.6), built
 * with Debian's Go (golang-go) offline: a GOPATH whose src links the packaged sources and the
 * program, in GOPATH mode. The build cache is kept between runs (the first build compiles the
 * library, about a minute). Built with -trimpath: the GOPATH is made afresh in each test's folder,
 * and without it the folder is part of every package's cache key (each build compiled everything
 * again: 9 s of wall and 15 s of CPU, against 0.6 s and under 1 s with the cache hit).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const GOCODE = '/usr/share/gocode/src';
const MESOS_GO = path.join(GOCODE, 'github.com/mesos/mesos-go');

const onPath = (command: string) =>
  (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, command)));

/** Why mesos-go programs cannot be built here (the Debian packages to install), or undefined when they can. */
export function mesosGoProblem(): string | undefined {
  const missing = [...(onPath('go') ? [] : ['golang-go']), ...(fs.existsSync(MESOS_GO) ? [] : ['golang-github-mesos-mesos-go-dev'])];
  return missing.length
    ? `mesos-go programs are built here with Debian's golang-go and golang-github-mesos-mesos-go-dev; ` +
        `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed: apt-get install ${missing.join(' ')} ` +
        '(.ci/run installs them)'
    : undefined;
}

/** Builds the Go program in `dir` (a package main); resolves with the binary's path, under `out`. */
export async function buildMesosGo(dir: string, out: string): Promise<string> {
  const problem = mesosGoProblem();
  if (problem) throw new Error(problem);
  const gopath = path.join(out, 'gopath');
  const src = path.join(gopath, 'src');
  fs.mkdirSync(src, { recursive: true });
  for (const entry of fs.readdirSync(GOCODE)) fs.symlinkSync(path.join(GOCODE, entry), path.join(src, entry));
  const name = path.basename(dir);
  fs.symlinkSync(dir, path.join(src, name));
  const binary = path.join(out, name);
  const env = {
    ...process.env,
    GOPATH: gopath,
    GO111MODULE: 'off',
    GOFLAGS: '',
    GOCACHE: process.env.GOCACHE ?? path.join(os.tmpdir(), 'arbiter-go-build-cache'),
  };
  try {
    await promisify(execFile)('go', ['build', '-trimpath', '-o', binary, name], { cwd: src, env, timeout: 300_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`go build of ${name} failed: ${e.stderr || e.message}`, { cause: err });
  }
  return binary;
}
