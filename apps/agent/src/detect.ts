/**
 * The machine's own resources, as Mesos's agent computes them when none are given: every CPU,
 * memory less 1 GB kept for the system (half when the machine has less than 2 GB), the work
 * directory's disk less 5 GB (half when under 10 GB), and the ports 31000-32000.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

const MB = 1024 * 1024;

export function keepBack(totalMb: number, reserveMb: number, halfBelowMb: number): number {
  return Math.max(0, Math.floor(totalMb < halfBelowMb ? totalMb / 2 : totalMb - reserveMb));
}

export function detectResources(workDir: string): string {
  const cpus = os.availableParallelism();
  const mem = keepBack(os.totalmem() / MB, 1024, 2048);
  fs.mkdirSync(workDir, { recursive: true });
  const st = fs.statfsSync(workDir);
  const disk = keepBack((st.blocks * st.bsize) / MB, 5 * 1024, 10 * 1024);
  return `cpus:${cpus};mem:${mem};disk:${disk};ports:[31000-32000]`;
}
