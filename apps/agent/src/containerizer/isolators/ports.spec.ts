import { spawn } from 'node:child_process';
import {
  formatRanges,
  inRanges,
  parseListeningSockets,
  parsePortRanges,
  PortsIsolator,
  portRangesOf,
  socketInodes,
  toRanges,
} from './ports';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:7A69 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 48863 1 0000000000000000 100 0 0 10 0
   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 51234 1 0000000000000000 100 0 0 10 0
   2: 0100007F:7A69 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 60000 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:2710 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000000000000 100 0 0 10 0
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:7A6A 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 70001 1 0000000000000000 100 0 0 10 0
`;

describe('network/ports isolator', () => {
  it('reads the listening sockets of /proc/net/tcp and tcp6: inode -> port, other states and inode 0 left out', () => {
    const out = parseListeningSockets(TCP6, parseListeningSockets(TCP));
    expect([...out]).toEqual([
      [48863, 31337],
      [51234, 8080],
      [70001, 31338],
    ]);
    expect(parseListeningSockets('')).toEqual(new Map());
  });

  it('merges, prints and parses port ranges as Mesos does', () => {
    expect(toRanges([31005, 31000, 31001, 31001])).toEqual([
      [31000, 31001],
      [31005, 31005],
    ]);
    expect(formatRanges(toRanges([31000, 31001, 31005]))).toBe('[31000-31001, 31005-31005]');
    expect(parsePortRanges('[31000-31005, 32000-32000]')).toEqual([
      [31000, 31005],
      [32000, 32000],
    ]);
    expect(parsePortRanges('8080')).toEqual([[8080, 8080]]);
    expect(parsePortRanges('[5-1]')).toEqual({ problem: "'[5-1]' must be port ranges such as [31000-31005,32000-32000]" });
    expect(parsePortRanges('70000')).toHaveProperty('problem');
    expect([inRanges(31001, [[31000, 31001]]), inRanges(31002, [[31000, 31001]])]).toEqual([true, false]);
    expect(portRangesOf([{ name: 'ports', ranges: [[1, 2]] }, { name: 'cpus' }, { name: 'ports', ranges: [[5, 5]] }])).toEqual([
      [1, 2],
      [5, 5],
    ]);
  });

  it("finds a process group's listening port once per interval, and only reports it when not enforcing", async () => {
    const server = `require('net').createServer().listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port)); })`;
    const child = spawn(process.execPath, ['-e', server], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const port = Number(await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString()))));
      const pid = child.pid ?? 0;
      expect(socketInodes(pid).length).toBeGreaterThan(0);
      let now = 0;
      const container = { name: 'c', sandbox: '/', pid, limits: { pids: 1 } };
      const enforcing = new PortsIsolator(
        { watchIntervalMs: 1_000 },
        () => undefined,
        () => now,
      );
      const message = `Container c is listening on unallocated port(s): [${port}-${port}]`;
      expect(enforcing.watch(container)).toEqual({ reason: 'REASON_CONTAINER_LIMITATION', message });
      // Its own port, an exempt one, or one outside the watched range is no limitation.
      expect(new PortsIsolator({}).watch({ ...container, limits: { pids: 1, ports: [[port, port]] } })).toBeUndefined();
      expect(new PortsIsolator({ exempt: [[port, port]] }).watch(container)).toBeUndefined();
      expect(new PortsIsolator({ isolatedRanges: [[port + 1, 65_535]] }).watch(container)).toBeUndefined();
      // The cgroup's processes, when it has one, are the ones looked at.
      expect(new PortsIsolator({}, () => []).watch(container)).toBeUndefined();
      expect(new PortsIsolator({}, () => [pid]).watch(container)?.message).toBe(message);

      const reports: string[] = [];
      const reporting = new PortsIsolator(
        { enforce: false, watchIntervalMs: 1_000, onReport: (_c, m) => reports.push(m) },
        undefined,
        () => now,
      );
      expect(reporting.watch(container)).toEqual({ reason: 'REASON_CONTAINER_LIMITATION', message, reportOnly: true });
      now += 5_000;
      // The same ports again: not reported twice.
      expect(reporting.watch(container)).toBeUndefined();
      expect(reports).toEqual([message]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
