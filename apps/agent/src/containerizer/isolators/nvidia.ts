/**
 * NVIDIA GPUs on this machine (for Mesos's `gpu/nvidia`): found with `nvidia-smi`, else from the
 * `/dev/nvidia<N>` device nodes the driver makes, each with the device node a container is let
 * into or kept out of. Also what a container runtime binds into an image so that a task there can
 * use its GPUs: the device nodes, and the driver's binaries and libraries found on the host
 * (as Mesos's NvidiaVolume, under /usr/local/nvidia).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { systemTool } from '../tools';

/** A GPU as the agent reports it (AgentCapabilities.gpus). */
export interface Gpu {
  /** nvidia-smi's index (the order of PCI bus ids). */
  index: number;
  uuid?: string;
  model: string;
}

/** A GPU with what isolating it needs. */
export interface NvidiaGpu extends Gpu {
  /** PCI bus id as nvidia-smi prints it (00000000:3B:00.0). */
  busId?: string;
  memoryMb?: number;
  /** Its device node (/dev/nvidia<minor>) and the node's numbers. */
  device: string;
  major: number;
  minor: number;
}

export interface GpuDetectOptions {
  /** nvidia-smi to run (default: found in the system's directories). */
  nvidiaSmi?: string;
  /** Where the device nodes are (default /dev). */
  devDir?: string;
  /** The driver's /proc directory (default /proc/driver/nvidia): device minors and models. */
  driverDir?: string;
  /** Only these GPUs, by index (Mesos's --nvidia_gpu_devices; default all). */
  only?: number[];
}

/** The major number of NVIDIA's GPU device nodes (and /dev/nvidiactl, minor 255). */
export const NVIDIA_MAJOR = 195;

/** One line of `nvidia-smi --query-gpu=index,uuid,name,memory.total,pci.bus_id --format=csv,noheader`. */
export function parseGpuCsv(text: string): Array<Omit<NvidiaGpu, 'device' | 'major' | 'minor'>> {
  const out: Array<Omit<NvidiaGpu, 'device' | 'major' | 'minor'>> = [];
  for (const line of text.split('\n')) {
    const f = line.split(',').map((s) => s.trim());
    if (f.length < 5 || !/^\d+$/.test(f[0])) continue;
    // A model with a comma in its name keeps it: the last two fields are memory and bus id.
    const model = f.slice(2, -2).join(', ');
    const memory = /^(\d+)\s*MiB$/i.exec(f.at(-2) ?? '');
    out.push({
      index: Number(f[0]),
      ...(f[1] && f[1] !== '[N/A]' ? { uuid: f[1] } : {}),
      model: model || 'unknown',
      ...(memory ? { memoryMb: Number(memory[1]) } : {}),
      ...(f.at(-1) ? { busId: f.at(-1) } : {}),
    });
  }
  return out;
}

/** Major and minor numbers of a device node (Linux's dev_t encoding), or undefined when it is not one. */
export function deviceNumbers(file: string): { major: number; minor: number } | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isCharacterDevice()) return undefined;
    const rdev = st.rdev;
    const high = Math.floor(rdev / 2 ** 32);
    const low = rdev % 2 ** 32;
    return { major: ((low >>> 8) & 0xfff) | ((high & 0xfffff000) >>> 0), minor: (low & 0xff) | ((low >>> 12) & 0xfff00) };
  } catch {
    return undefined;
  }
}

/** The driver's information files (/proc/driver/nvidia/gpus/<bus id>/information), by bus id lowercased with a 4-digit domain. */
function driverInfo(driverDir: string): Map<string, { minor?: number; model?: string }> {
  const out = new Map<string, { minor?: number; model?: string }>();
  let buses: string[];
  try {
    buses = fs.readdirSync(path.join(driverDir, 'gpus'));
  } catch {
    return out;
  }
  for (const bus of buses) {
    try {
      const text = fs.readFileSync(path.join(driverDir, 'gpus', bus, 'information'), 'utf8');
      const minor = /^Device Minor:\s*(\d+)/m.exec(text)?.[1];
      const model = /^Model:\s*(.+)$/m.exec(text)?.[1]?.trim();
      out.set(bus.toLowerCase(), { ...(minor ? { minor: Number(minor) } : {}), ...(model ? { model } : {}) });
    } catch {
      continue;
    }
  }
  return out;
}

/** 00000000:3B:00.0 -> 0000:3b:00.0 (the driver's directory name). */
const shortBusId = (busId: string) => busId.toLowerCase().replace(/^[0-9a-f]*([0-9a-f]{4}):/, '$1:');

/** The GPUs of this machine with their device nodes, by index; none where there is no NVIDIA driver. */
export function detectNvidiaGpus(options: GpuDetectOptions = {}): NvidiaGpu[] {
  const devDir = options.devDir ?? '/dev';
  const info = driverInfo(options.driverDir ?? '/proc/driver/nvidia');
  const smi = options.nvidiaSmi ?? systemTool('nvidia-smi');
  let found: NvidiaGpu[] = [];
  if (smi) {
    try {
      const csv = execFileSync(smi, ['--query-gpu=index,uuid,name,memory.total,pci.bus_id', '--format=csv,noheader'], {
        encoding: 'utf8',
        timeout: 10_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      found = parseGpuCsv(csv).map((g) => {
        const minor = (g.busId ? info.get(shortBusId(g.busId))?.minor : undefined) ?? g.index;
        const device = path.join(devDir, `nvidia${minor}`);
        return { ...g, device, ...(deviceNumbers(device) ?? { major: NVIDIA_MAJOR, minor }) };
      });
    } catch {
      // No driver loaded, or nvidia-smi broken: the device nodes below.
    }
  }
  if (found.length === 0) found = fromDeviceNodes(devDir, info);
  const only = options.only;
  return (only ? found.filter((g) => only.includes(g.index)) : found).sort((a, b) => a.index - b.index);
}

/** The GPUs from /dev/nvidia<N> alone: index and minor N, the model from the driver when it says. */
function fromDeviceNodes(devDir: string, info: Map<string, { minor?: number; model?: string }>): NvidiaGpu[] {
  let names: string[];
  try {
    names = fs.readdirSync(devDir);
  } catch {
    return [];
  }
  const models = new Map([...info.values()].flatMap((i) => (i.minor !== undefined && i.model ? [[i.minor, i.model]] : [])));
  return names.flatMap((name) => {
    const n = /^nvidia(\d+)$/.exec(name)?.[1];
    const device = path.join(devDir, name);
    const numbers = n === undefined ? undefined : deviceNumbers(device);
    if (!numbers) return [];
    return [{ index: Number(n), model: models.get(numbers.minor) ?? 'unknown', device, ...numbers }];
  });
}

/** The GPUs as the agent reports them (AgentCapabilities.gpus): index, uuid, model. */
export function detectGpus(options: GpuDetectOptions = {}): Gpu[] {
  return detectNvidiaGpus(options).map(({ index, uuid, model }) => ({ index, model, ...(uuid ? { uuid } : {}) }));
}

/** A device node a container is given: its path on the host (the same inside), type and numbers. */
export interface DeviceNode {
  path: string;
  type: 'c';
  major: number;
  minor: number;
}

/** A file bound read-only into the container. */
export interface BindMount {
  source: string;
  destination: string;
  readOnly: boolean;
}

/** Where the driver's files go in a container (Mesos's NvidiaVolume). */
export const NVIDIA_VOLUME = '/usr/local/nvidia';

/** The driver's user-space tools, bound into containers when found. */
const DRIVER_BINARIES = ['nvidia-smi', 'nvidia-debugdump', 'nvidia-persistenced', 'nvidia-cuda-mps-control', 'nvidia-cuda-mps-server'];

/** `ldconfig -p` output: the driver's libraries (libcuda, libnvidia-*), library name -> host path, 64-bit ones first. */
export function parseLdconfig(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const wide = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^\s*((?:libcuda\.so|libnvidia)\S*)\s+\(([^)]*)\)\s+=>\s+(\S+)/.exec(line);
    if (!m || wide.has(m[1])) continue;
    const is64 = /x86-64|64bit|AArch64/i.test(m[2]);
    if (is64) wide.add(m[1]);
    if (is64 || !out.has(m[1])) out.set(m[1], m[3]);
  }
  return out;
}

/**
 * What a container runtime gives a container holding `gpus` so that a task in an image can use
 * them: their device nodes with the driver's control nodes (nvidiactl, nvidia-uvm,
 * nvidia-uvm-tools, as Mesos grants them to every container), and the driver's binaries and
 * libraries bound under /usr/local/nvidia (the runtime adds `binDir` to the task's PATH and
 * `libDir` to its LD_LIBRARY_PATH).
 */
export function nvidiaContainerMounts(
  gpus: NvidiaGpu[],
  options: { devDir?: string; nvidiaSmi?: string; ldconfig?: string } = {},
): { devices: DeviceNode[]; mounts: BindMount[]; binDir: string; libDir: string } {
  const devDir = options.devDir ?? '/dev';
  const devices: DeviceNode[] = gpus.map((g) => ({ path: g.device, type: 'c', major: g.major, minor: g.minor }));
  for (const name of ['nvidiactl', 'nvidia-uvm', 'nvidia-uvm-tools']) {
    const file = path.join(devDir, name);
    const numbers = deviceNumbers(file);
    if (numbers) devices.push({ path: file, type: 'c', ...numbers });
  }
  const mounts: BindMount[] = [];
  const smiDir = options.nvidiaSmi ? path.dirname(options.nvidiaSmi) : undefined;
  for (const name of DRIVER_BINARIES) {
    const source = smiDir && fs.existsSync(path.join(smiDir, name)) ? path.join(smiDir, name) : systemTool(name);
    if (source) mounts.push({ source, destination: path.join(NVIDIA_VOLUME, 'bin', name), readOnly: true });
  }
  let libraries = new Map<string, string>();
  const ldconfig = options.ldconfig ?? systemTool('ldconfig');
  if (ldconfig) {
    try {
      libraries = parseLdconfig(execFileSync(ldconfig, ['-p'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }));
    } catch {
      // No library cache: no libraries to bind.
    }
  }
  for (const [name, source] of libraries) mounts.push({ source, destination: path.join(NVIDIA_VOLUME, 'lib64', name), readOnly: true });
  return { devices, mounts, binDir: path.join(NVIDIA_VOLUME, 'bin'), libDir: path.join(NVIDIA_VOLUME, 'lib64') };
}
