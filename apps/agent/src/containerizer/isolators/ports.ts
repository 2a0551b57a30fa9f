/**
 * The network/ports isolator (Mesos's `network/ports`): a container may listen only on the ports
 * of its `ports` resources. Every watch interval the agent reads the listening TCP sockets once
 * (/proc/net/tcp and tcp6: local port and socket inode, for every container at once), then, per
 * container, the sockets its processes hold open (the pids of its cgroup, else of its process
 * group; /proc/<pid>/fd links `socket:[inode]`). A container listening on a port it was not
 * given gets Mesos's limitation (REASON_CONTAINER_LIMITATION, "Container ... is listening on
 * unallocated port(s): [...]") and ends FAILED; with enforcement off it is only reported, once
 * per new set of ports. Sockets of containers in a network namespace of their own are not in
 * the agent's /proc/net/tcp and so are not watched (as Mesos leaves CNI containers alone).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Container, Limitation, TaskIsolator } from './isolator';

/** A range of ports, both ends included (a `ports` resource's ranges). */
export type PortRange = [number, number];

/** The TCP state LISTEN in /proc/net/tcp's `st` column. */
const LISTEN = '0A';
export const ALL_PORTS: PortRange[] = [[0, 65_535]];
const DEFAULT_WATCH_INTERVAL_MS = 30_000;

/**
 * The listening sockets of a /proc/net/tcp or tcp6 table: socket inode -> local port. Lines in
 * another state, the header, and sockets without an inode (closing) are skipped.
 */
export function parseListeningSockets(text: string, into = new Map<number, number>()): Map<number, number> {
  for (const line of text.split('\n')) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== LISTEN) continue;
    const port = parseInt(f[1].slice(f[1].lastIndexOf(':') + 1), 16);
    const inode = Number(f[9]);
    if (Number.isInteger(port) && Number.isInteger(inode) && inode > 0) into.set(inode, port);
  }
  return into;
}

/** Every listening TCP socket (IPv4 and IPv6) of the agent's network namespace: inode -> port. */
export function listeningSockets(procNet = '/proc/net'): Map<number, number> {
  const out = new Map<number, number>();
  for (const table of ['tcp', 'tcp6']) {
    try {
      parseListeningSockets(fs.readFileSync(path.join(procNet, table), 'utf8'), out);
    } catch {
      // No IPv6 (or no IPv4) in this kernel: nothing listens there.
    }
  }
  return out;
}

/** The inodes of the sockets a process holds open; none once it is gone. */
export function socketInodes(pid: number): number[] {
  const dir = `/proc/${pid}/fd`;
  let fds: string[];
  try {
    fds = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`${dir}/${fd}`));
      if (m) out.push(Number(m[1]));
    } catch {
      // Closed while we looked.
    }
  }
  return out;
}

/** Processes by process group, from one pass over /proc (for containers without a cgroup). */
function processGroups(): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      out.set(pgid, [...(out.get(pgid) ?? []), Number(entry)]);
    } catch {
      // Ended while we looked.
    }
  }
  return out;
}

export const inRanges = (port: number, ranges: readonly PortRange[]) => ranges.some(([b, e]) => port >= b && port <= e);

/** Ports as sorted, merged ranges: [31000, 31001, 31005] -> [[31000, 31001], [31005, 31005]]. */
export function toRanges(ports: Iterable<number>): PortRange[] {
  const out: PortRange[] = [];
  for (const p of [...new Set(ports)].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last && p === last[1] + 1) last[1] = p;
    else out.push([p, p]);
  }
  return out;
}

/** Ranges as Mesos prints them: `[31000-31001, 31005-31005]`. */
export const formatRanges = (ranges: readonly PortRange[]) => `[${ranges.map(([b, e]) => `${b}-${e}`).join(', ')}]`;

export interface PortsOptions {
  /** How often listening sockets are checked (Mesos's --container_ports_watch_interval; default 30 s). */
  watchIntervalMs?: number;
  /** Whether a container on an unallocated port is ended (default) or only reported (Mesos's --enforce_container_ports). */
  enforce?: boolean;
  /** The ports watched (default all; Mesos's --container_ports_isolated_range, or the agent's own with --check_agent_port_range_only). */
  isolatedRanges?: PortRange[];
  /** Ports any container may listen on (an agent-wide service a task brings up, say). */
  exempt?: PortRange[];
  /** Told of a container on unallocated ports when they are only reported (once per new set). */
  onReport?: (c: Container, message: string) => void;
}

/** A container's state between checks: the check it was last looked at in, and what was found. */
interface Seen {
  check: number;
  found?: Limitation;
  /** The last message reported (report-only: a new one only when the ports change). */
  reported?: string;
}

export class PortsIsolator implements TaskIsolator {
  readonly name = 'network/ports';
  readonly watchIntervalMs: number;
  readonly enforce: boolean;
  private readonly isolated: PortRange[];
  private readonly exempt: PortRange[];
  /** This check's listening sockets (read once for every container), and its number. */
  private table?: { at: number; check: number; listening: Map<number, number>; groups?: Map<number, number[]> };
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly options: PortsOptions = {},
    /** The processes of a container's cgroup, when it has one (else its process group's are found in /proc). */
    private readonly cgroupPids: (c: Container) => number[] | undefined = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.watchIntervalMs = options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
    this.enforce = options.enforce ?? true;
    this.isolated = options.isolatedRanges ?? ALL_PORTS;
    this.exempt = options.exempt ?? [];
  }

  /**
   * Called on every poll of the container: the sockets are read again once the interval has
   * passed, and each container is checked once against each reading.
   */
  watch(c: Container): Limitation | undefined {
    if (c.pid === undefined) return undefined;
    const at = this.now();
    if (!this.table || at - this.table.at >= this.watchIntervalMs)
      this.table = { at, check: (this.table?.check ?? 0) + 1, listening: listeningSockets() };
    const seen = this.seen.get(c.name) ?? { check: 0 };
    this.seen.set(c.name, seen);
    if (seen.check === this.table.check) return seen.found;
    seen.check = this.table.check;
    const unallocated = this.listeningPorts(c).filter((p) => !inRanges(p, c.limits.ports ?? []));
    if (unallocated.length === 0) {
      seen.found = seen.reported = undefined;
      return undefined;
    }
    const message = `Container ${c.name} is listening on unallocated port(s): ${formatRanges(toRanges(unallocated))}`;
    if (this.enforce) {
      seen.found = { reason: 'REASON_CONTAINER_LIMITATION', message };
      return seen.found;
    }
    if (seen.reported !== message) {
      seen.reported = message;
      this.options.onReport?.(c, message);
      return { reason: 'REASON_CONTAINER_LIMITATION', message, reportOnly: true };
    }
    return undefined;
  }

  /** How many times the listening sockets were read (for tests and operators' tools). */
  get checks(): number {
    return this.table?.check ?? 0;
  }

  cleanup(c: Container): boolean {
    this.seen.delete(c.name);
    return true;
  }

  /** The watched, not exempt, ports the container's processes listen on. */
  private listeningPorts(c: Container): number[] {
    const table = this.table;
    if (!table || table.listening.size === 0 || c.pid === undefined) return [];
    let pids = this.cgroupPids(c);
    if (!pids) {
      table.groups ??= processGroups();
      pids = table.groups.get(c.pid) ?? [];
    }
    const ports = new Set<number>();
    for (const pid of pids)
      for (const inode of socketInodes(pid)) {
        const port = table.listening.get(inode);
        if (port !== undefined && inRanges(port, this.isolated) && !inRanges(port, this.exempt)) ports.add(port);
      }
    return [...ports];
  }
}

/** The port ranges of a task's (or an executor's summed) resources. */
export function portRangesOf(resources: ReadonlyArray<{ name: string; ranges?: Array<[number, number]> }>): PortRange[] {
  return resources.filter((r) => r.name === 'ports').flatMap((r) => (r.ranges ?? []).map(([b, e]): PortRange => [b, e]));
}

/** Mesos's ranges text, `[31000-31005,32000-32000]` or `31000-31005`, as ranges (or why not). */
export function parsePortRanges(text: string): PortRange[] | { problem: string } {
  const body = text.trim().replace(/^\[/, '').replace(/\]$/, '');
  const out: PortRange[] = [];
  for (const part of body.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    const [b, e] = m ? [Number(m[1]), Number(m[2] || m[1])] : [NaN, NaN];
    if (!(b <= e && e <= 65_535)) return { problem: `'${text}' must be port ranges such as [31000-31005,32000-32000]` };
    out.push([b, e]);
  }
  return out;
}
