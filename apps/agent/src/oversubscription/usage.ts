/**
 * What a task uses, measured from procfs: the processes of its cgroup (or, without one, of its
 * process group), their resident memory and CPU time. CPU use is the CPU time spent between two
 * samples over the time between them, so a task is measured from its second sample on.
 */
import * as fs from 'node:fs';
import type { Scalars } from '@arbiter/modules';

const PAGE_BYTES = 4096;
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pgrp: number;
  cpuSeconds: number;
  rssBytes: number;
}

/** /proc/PID/stat: the process group, user + system time, resident pages (undefined once gone). */
function procStat(pid: number): ProcStat | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after its last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pgrp: Number(f[2]), cpuSeconds: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND, rssBytes: Number(f[21]) * PAGE_BYTES };
  } catch {
    return undefined;
  }
}

/** The processes of a process group. */
export function groupPids(pgid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((e) => /^\d+$/.test(e) && procStat(Number(e))?.pgrp === pgid).map(Number);
}

export interface Sample {
  at: number;
  cpuSeconds: number;
  memBytes: number;
}

export function sample(pids: readonly number[], at: number): Sample {
  let cpuSeconds = 0;
  let memBytes = 0;
  for (const pid of pids) {
    const st = procStat(pid);
    if (!st) continue;
    cpuSeconds += st.cpuSeconds;
    memBytes += st.rssBytes;
  }
  return { at, cpuSeconds, memBytes };
}

/** Use between two samples: cores and MB. */
export function usedBetween(before: Sample, after: Sample): Scalars | undefined {
  const seconds = (after.at - before.at) / 1000;
  if (!(seconds > 0)) return undefined;
  return { cpus: Math.max(0, (after.cpuSeconds - before.cpuSeconds) / seconds), mem: after.memBytes / 1024 / 1024 };
}
