#!/usr/bin/env python3
"""Checks the agent's GPU detection and environment isolation on a real NVIDIA machine.

The machine needs Python 3 and the NVIDIA driver (nvidia-smi, libcuda); no Node.js. It does
what the agent's gpu/nvidia isolator does (apps/agent/src/containerizer/isolators/nvidia.ts and
gpus.ts), without the agent:

1. detects the GPUs with the same nvidia-smi query and parses its csv the same way;
2. for each GPU, runs `nvidia-smi -L` and counts the devices CUDA sees (cuInit and
   cuDeviceGetCount through libcuda) with the environment a task holding that one GPU gets:
   NVIDIA_VISIBLE_DEVICES=<index>, CUDA_VISIBLE_DEVICES=<uuid>, CUDA_DEVICE_ORDER=PCI_BUS_ID;
3. does the same with the environment of a task holding none (CUDA_VISIBLE_DEVICES empty,
   NVIDIA_VISIBLE_DEVICES=void).

nvidia-smi talks to the driver through NVML, which does not read CUDA_VISIBLE_DEVICES: it lists
every GPU whose device node the process may open (on a cgroups v1 agent the devices cgroup
hides the others; on cgroups v2 only machines nothing does). CUDA's count is what a task's
program sees. Exits 0 when CUDA sees exactly one device for each GPU and none without.

Usage: python3 scripts/gpu-check.py [--nvidia-smi PATH]
"""
import ctypes
import os
import subprocess
import sys

QUERY = ["--query-gpu=index,uuid,name,memory.total,pci.bus_id", "--format=csv,noheader"]

# Run in a child process so that each environment is read by a fresh cuInit.
CUDA_COUNT = r"""
import ctypes, sys
try:
    cuda = ctypes.CDLL("libcuda.so.1")
except OSError as e:
    print("no libcuda: %s" % e); sys.exit(3)
rc = cuda.cuInit(0)
if rc == 100:  # CUDA_ERROR_NO_DEVICE
    print(0); sys.exit(0)
if rc != 0:
    print("cuInit failed with %d" % rc); sys.exit(4)
n = ctypes.c_int(0)
rc = cuda.cuDeviceGetCount(ctypes.byref(n))
print(n.value if rc == 0 else "cuDeviceGetCount failed with %d" % rc)
"""


def parse_csv(text):
    """As parseGpuCsv in nvidia.ts: index, uuid, model (commas kept), memory, bus id."""
    gpus = []
    for line in text.splitlines():
        f = [s.strip() for s in line.split(",")]
        if len(f) < 5 or not f[0].isdigit():
            continue
        gpus.append({"index": int(f[0]), "uuid": f[1] if f[1] and f[1] != "[N/A]" else None,
                     "model": ", ".join(f[2:-2]) or "unknown", "memory": f[-2], "bus": f[-1]})
    return gpus


def environment(held):
    """As gpuEnvironment in gpus.ts."""
    if not held:
        return {"CUDA_VISIBLE_DEVICES": "", "NVIDIA_VISIBLE_DEVICES": "void"}
    by_uuid = all(g["uuid"] for g in held)
    return {
        "NVIDIA_VISIBLE_DEVICES": ",".join(str(g["index"]) for g in held),
        "CUDA_VISIBLE_DEVICES": ",".join(g["uuid"] if by_uuid else str(g["index"]) for g in held),
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
    }


def run(argv, env):
    merged = dict(os.environ)
    merged.pop("CUDA_VISIBLE_DEVICES", None)
    merged.pop("NVIDIA_VISIBLE_DEVICES", None)
    merged.update(env)
    p = subprocess.run(argv, env=merged, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    return p.returncode, p.stdout.strip()


def main():
    smi = "nvidia-smi"
    if len(sys.argv) == 3 and sys.argv[1] == "--nvidia-smi":
        smi = sys.argv[2]
    try:
        csv = subprocess.run([smi] + QUERY, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("nvidia-smi failed: %s" % e)
        return 2
    gpus = parse_csv(csv)
    print("detected %d GPU(s):" % len(gpus))
    for g in gpus:
        print("  index %(index)d  uuid %(uuid)s  model %(model)s  memory %(memory)s  bus %(bus)s" % g)
    nodes = sorted(n for n in os.listdir("/dev") if n.startswith("nvidia"))
    print("device nodes: %s" % " ".join(nodes))
    ok = bool(gpus)
    for held, expected in [([g], 1) for g in gpus] + [([], 0)]:
        env = environment(held)
        print("\n== a task holding %s" % (", ".join("GPU %d" % g["index"] for g in held) or "no GPU"))
        for k in sorted(env):
            print("  %s=%s" % (k, env[k]))
        rc, out = run([smi, "-L"], env)
        print("  nvidia-smi -L (exit %d):" % rc)
        for line in out.splitlines():
            print("    " + line)
        rc, out = run([sys.executable, "-c", CUDA_COUNT], env)
        print("  devices CUDA sees: %s (expected %d)" % (out, expected))
        if out != str(expected):
            ok = False
    print("\n%s" % ("OK: each task's CUDA sees exactly its own GPUs" if ok else "FAILED: see above"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
