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

/**
 * The GPUs the agent hands out (see containerizer/isolators/gpus.ts): every one found when the
 * operator named no `gpus` (Mesos's agent does the same with gpu/nvidia), else the first
 * `named` of them; why not, when the machine has fewer than named.
 */
export function gpusToOffer<G>(named: number | undefined, found: G[]): { gpus: G[] } | { problem: string } {
  if (named === undefined) return { gpus: found };
  if (!Number.isInteger(named)) return { problem: `gpus:${named} must be a whole number of GPUs` };
  if (named > found.length) return { problem: `gpus:${named} is more than the ${found.length} NVIDIA GPU(s) found on this machine` };
  return { gpus: found.slice(0, named) };
}

/**
 * The agent's attributes with `gpu_model` (its GPUs' models, e.g. "NVIDIA H200"), for placement
 * constraints; Mesos sets no such attribute, and one the operator gives is kept.
 */
export function withGpuModel(attributes: Record<string, string | number>, gpus: Array<{ model: string }>): Record<string, string | number> {
  if (gpus.length === 0 || 'gpu_model' in attributes) return attributes;
  return { ...attributes, gpu_model: [...new Set(gpus.map((g) => g.model))].join(',') };
}
