import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '../../../..');
const bin = path.join(repoRoot, 'apps/cli/bin/arbiter.js');

function arbiter(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: repoRoot });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('arbiter bench allocator', () => {
  it.each(['decline-offers', 'quota', 'hierarchy-depth-7'])('runs the %s shape at the size given and ends with its JSON line', (shape) => {
    const r = arbiter('bench', 'allocator', '--shape', shape, '--agents', '50', '--frameworks', '10', '--roles', '10', '--cycles', '2');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const report = JSON.parse(lines[lines.length - 1]) as { medianMs: number; p95Ms: number; offerMedianMs: number | null };
    expect(report).toMatchObject({ shape, agents: 50, frameworks: 10, cycles: 2, filteredMedianMs: null });
    expect(report.offerMedianMs).toBeGreaterThan(0);
    expect(report.medianMs).toBeGreaterThan(0);
    expect(report.p95Ms).toBeGreaterThanOrEqual(report.medianMs);
    expect(r.stdout).toMatch(/median ms/);
  });

  it('reports the median of cycles that made offers and of cycles that made none', () => {
    // 5 agents, 2 frameworks, every offer declined for 30 days: after 2 cycles every pair is filtered.
    const r = arbiter('bench', 'allocator', '--shape', 'decline-offers', '--agents', '5', '--frameworks', '2', '--cycles', '5');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const report = JSON.parse(lines[lines.length - 1]) as { offerMedianMs: number; filteredMedianMs: number };
    expect(report.offerMedianMs).toBeGreaterThan(0);
    expect(report.filteredMedianMs).toBeGreaterThanOrEqual(0);
  });

  it('--check runs the reference and the fast path side by side and finds the same offers', () => {
    const r = arbiter('bench', 'allocator', '--check', '--shape', 'decline-offers', '--agents', '30', '--frameworks', '5', '--cycles', '8');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/check ok: decline-offers agents=30 frameworks=5 roles=1: 8 cycles, \d+ offers the same on both paths/);
  });

  it('--reference times the reference path', () => {
    const r = arbiter(
      'bench',
      'allocator',
      '--reference',
      '--shape',
      'quota',
      '--agents',
      '20',
      '--frameworks',
      '20',
      '--roles',
      '20',
      '--cycles',
      '2',
    );
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ shape: 'quota', path: 'reference' });
  });

  it('runs every depth of the hierarchy shape for --shape hierarchy', () => {
    const r = arbiter(
      'bench',
      'allocator',
      '--shape',
      'hierarchy',
      '--agents',
      '20',
      '--frameworks',
      '10',
      '--roles',
      '10',
      '--cycles',
      '1',
    );
    expect(r.status).toBe(0);
    const shapes = r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { shape: string }).shape);
    expect(shapes).toEqual(['hierarchy-depth-3', 'hierarchy-depth-7', 'hierarchy-depth-10']);
  });

  it.each([
    [['--shape', 'nope'], /unknown shape 'nope'/],
    [['--agents', '-3'], /--agents must be a positive whole number, got '-3'/],
    [['--cycles', 'many'], /--cycles must be a positive whole number/],
  ])('refuses %j with exit 2', (args, message) => {
    const r = arbiter('bench', 'allocator', ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('refuses an unknown suite', () => {
    const r = arbiter('bench', 'nothing');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown benchmark suite 'nothing' \(known: allocator, e2e, api, dashboard, failover\)/);
  });
});
