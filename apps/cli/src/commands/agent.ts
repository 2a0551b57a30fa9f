/**
 * `arbiter agent --master URL`: runs an agent on this machine. Without --resources it reports
 * the machine's own cpus, memory and disk. Ctrl-C stops the agent; its tasks keep running and
 * a restarted agent (same --work-dir) recovers them, unless --kill-tasks-on-exit is given.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MasterUrls } from '@arbiter/contracts/masters';
import type { Command } from 'commander';
import { type AgentFlags, agentFlagOptions, loadAgentModules } from './agent-flags';
import { untilSignal } from '../signals';
import { registerAgentOperations } from './ops/agents';

/** "rack:r1;zone:a;level:3" -> { rack: 'r1', zone: 'a', level: 3 } */
export function parseAttributes(text: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const part of text.split(';').filter((p) => p.trim() !== '')) {
    const i = part.indexOf(':');
    if (i <= 0 || i === part.length - 1) throw new Error(`--attributes: '${part}' must read name:value (e.g. "rack:r1;zone:a")`);
    const name = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    out[name] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}

export function register(program: Command): void {
  const command = program
    .command('agent')
    .description('run an agent: register this machine with the control plane and run the tasks it is sent')
    .option('--master <urls>', "control plane URL, or its replicas' URLs comma-separated (ARBITER_MASTER), e.g. http://127.0.0.1:8080")
    .option(
      '--resources <text>',
      'resources to offer, Mesos text, e.g. "cpus:4;mem:8192;disk:20000;ports:[31000-32000]" (default: this machine\'s)',
    )
    .option(
      '--resources-file <file>',
      'a file holding the resources in Mesos text, read again on SIGHUP: the control plane takes the new total without a restart',
    )
    .option('--attributes <text>', 'attributes, e.g. "rack:r1;zone:a"')
    .option('--work-dir <dir>', 'where tasks run and state is kept (default ./.arbiter/agent-<hostname>)')
    .option(
      '--sandbox-dir <dir>',
      "where tasks' sandboxes go (ARBITER_SANDBOX_DIR; default the work directory): a filesystem of their own keeps tasks from filling the agent's",
    )
    .option('--token-file <file>', "a file holding an agent principal's token (or ARBITER_AGENT_TOKEN)")
    .option('--token <token>', 'the token itself (visible to every user of the machine in the process list: prefer --token-file)')
    .option('--ca <file>', 'PEM certificate(s) to trust for an https:// master (ARBITER_CA_FILE)')
    .option(
      '--connect-timeout <seconds>',
      'seconds a connection attempt to a control plane may take before the next one is tried (ARBITER_CONNECT_TIMEOUT; default 3)',
    )
    .option(
      '--task-user <name>',
      "OS user of tasks for which neither they nor their framework name one (ARBITER_TASK_USER; default as root: each framework's own dynamic user; setting it makes those tasks share one user)",
    )
    .option('--allow-root-tasks', 'let tasks run as root (uid 0) when they name it (ARBITER_ALLOW_ROOT_TASKS=true; default: refused)')
    .option(
      '--isolation <names>',
      "plain tasks' isolators, comma-separated: filesystem/linux (private /tmp, volumes), namespaces/pid (ARBITER_ISOLATION; default: filesystem/linux where this machine allows it)",
    )
    .option(
      '--allowed-host-paths <paths>',
      'host paths (colon-separated) under which HOST_PATH volumes may be mounted (ARBITER_ALLOWED_HOST_PATHS; default: none)',
    )
    .option('--hostname <name>', "hostname to report (default: this machine's)")
    .option('--kill-tasks-on-exit', 'kill running tasks when the agent stops')
    .option(
      '--executor-registration-timeout <duration>',
      'how long an executor has to subscribe, e.g. 60s, 2mins (ARBITER_EXECUTOR_REGISTRATION_TIMEOUT; default 60s)',
    )
    .option(
      '--gc-delay <duration>',
      "how long an ended task's sandbox and record are kept, less as the disk fills, e.g. 1weeks, 2days (ARBITER_GC_DELAY; default 1 week, as Mesos)",
    )
    .option(
      '--gc-disk-headroom <share>',
      "the share of the disk kept free: at it, ended tasks' sandboxes go at once (ARBITER_GC_DISK_HEADROOM; default 0.1)",
    )
    .option('--executor-api-address <ip>', "where the executor API listens: an address this machine's executors reach (default 127.0.0.1)")
    .option(
      '--executor-api-port <port>',
      "the executor API's port (default: the last run's, so executors that outlive a restart find it; else any)",
    )
    .option('--default-registry <host>', 'registry of images that name none (ARBITER_DEFAULT_REGISTRY; default docker.io)')
    .option(
      '--registry-mirrors <hosts>',
      'mirrors of the default registry, tried in order before it, comma-separated (ARBITER_REGISTRY_MIRRORS)',
    )
    .option(
      '--insecure-registries <hosts>',
      'registries reached over plain HTTP, comma-separated; only these (ARBITER_INSECURE_REGISTRIES)',
    )
    .option(
      '--registry-credentials-file <file>',
      'JSON {"host[:port]": {"username": "...", "password": "..."}}: basic credentials per registry (ARBITER_REGISTRY_CREDENTIALS_FILE)',
    )
    .option(
      '--registry-cert-dir <dir>',
      'a directory of CA certificates (*.crt) for registries with a private CA (ARBITER_REGISTRY_CERT_DIR)',
    )
    .option(
      '--image-archive-dir <dir>',
      "offline: image archives as <dir>/<repository>:<tag>.tar, no registry contacted, as Mesos's --docker_registry=/path (ARBITER_IMAGE_ARCHIVE_DIR)",
    )
    .option(
      '--image-store-limit <size>',
      'unused images are collected past this store size, e.g. 20G (ARBITER_IMAGE_STORE_LIMIT; default 10G)',
    )
    .option(
      '--container-ports-watch-interval <duration>',
      "how often tasks' listening ports are checked against their `ports` (network/ports), e.g. 30s (default 30s; 0: not checked)",
    )
    .option(
      '--no-enforce-container-ports',
      'only report a task listening on a port it was not given (log and status update), never kill it',
    )
    .option('--check-agent-port-range-only', "watch only the ports of this agent's `ports` resources")
    .option('--container-ports-isolated-range <ranges>', 'the ports watched, e.g. "[1024-65535]" (default all)')
    .option('--container-ports-exempt <ranges>', 'ports any task may listen on, e.g. "[9100-9100]"')
    .option('--nvidia-gpu-devices <indices>', 'the GPUs handed out to tasks, by nvidia-smi index, e.g. "0,1" (default all found)')
    .option('--nvidia-smi <path>', "nvidia-smi to detect GPUs with (default: the system's)")
    .option('--log-max-size <size>', "rotate a task's stdout/stderr past this size, e.g. 10M (ARBITER_LOG_MAX_SIZE; default: never)")
    .option('--log-keep <n>', 'rotated logs kept per task log (ARBITER_LOG_KEEP; default 5)')
    .option(
      '--modules <file>',
      "a JSON file naming modules to load at start, in order, with their parameters (ARBITER_MODULES; Mesos's --modules; docs/modules.md): executor-start, container-start and executor-removed hooks, isolators, a resource estimator and a QoS controller",
    )
    .option(
      '--oversubscribed-resources-interval <duration>',
      "how often the resource estimator and QoS controller modules run (ARBITER_OVERSUBSCRIBED_RESOURCES_INTERVAL; default 15s, as Mesos's)",
    )
    .option(
      '--fetcher-cache-dir <dir>',
      'where fetched URIs with cache: true are kept (ARBITER_FETCHER_CACHE_DIR; default <work-dir>/fetch-cache)',
    )
    .option('--fetcher-cache-size <size>', 'the fetch cache size, least recently used out first (ARBITER_FETCHER_CACHE_SIZE; default 2G)')
    .option('--fetcher-max-size <size>', 'the most one fetched URI may bring (ARBITER_FETCHER_MAX_SIZE; default 4G)')
    .option('--fetcher-timeout <duration>', 'how long one URI may take to fetch and unpack (ARBITER_FETCHER_TIMEOUT; default 10mins)')
    .action(async (flags: AgentFlags) => {
      const { parseResources } = await import('@arbiter/allocator');
      const agentLib = await import('@arbiter/agent');
      const fail = (message: string) => {
        console.error(message);
        process.exitCode = 2;
      };
      let master: MasterUrls;
      try {
        master = new MasterUrls(flags.master ?? process.env.ARBITER_MASTER ?? '');
      } catch (err) {
        fail(`--master (or ARBITER_MASTER): ${(err as Error).message}`);
        return;
      }
      let token = flags.token ?? process.env.ARBITER_AGENT_TOKEN;
      if (flags.tokenFile) {
        try {
          token = fs.readFileSync(flags.tokenFile, 'utf8').trim();
        } catch (err) {
          fail(`--token-file: ${(err as Error).message}`);
          return;
        }
      }
      let ca: string | undefined;
      const caFile = flags.ca ?? (process.env.ARBITER_CA_FILE || undefined);
      if (caFile) {
        try {
          ca = fs.readFileSync(caFile, 'utf8');
        } catch (err) {
          fail(`--ca: ${(err as Error).message}`);
          return;
        }
      }
      if (!token) {
        fail(
          '--token-file is required (or set ARBITER_AGENT_TOKEN): the control plane accepts agents with the token of an agent principal',
        );
        return;
      }
      const connectTimeout = flags.connectTimeout ?? (process.env.ARBITER_CONNECT_TIMEOUT || undefined);
      const connectTimeoutMs = connectTimeout === undefined ? undefined : Number(connectTimeout) * 1000;
      if (connectTimeoutMs !== undefined && !(connectTimeoutMs >= 100 && connectTimeoutMs <= 600_000)) {
        fail(`--connect-timeout: '${connectTimeout}' must be a number of seconds from 0.1 to 600`);
        return;
      }
      const hostname = flags.hostname ?? os.hostname();
      const workDir = path.resolve(flags.workDir ?? path.join('.arbiter', `agent-${hostname}`));
      const sandboxDirFlag = flags.sandboxDir ?? (process.env.ARBITER_SANDBOX_DIR || undefined);
      const sandboxDir = sandboxDirFlag === undefined ? undefined : path.resolve(sandboxDirFlag);
      const only = flags.nvidiaGpuDevices?.split(',').map((i) => Number(i.trim()));
      if (only?.some((i) => !Number.isInteger(i) || i < 0)) {
        fail(`--nvidia-gpu-devices: '${flags.nvidiaGpuDevices}' must be GPU indices such as 0,1`);
        return;
      }
      const foundGpus = agentLib.detectNvidiaGpus({
        ...(flags.nvidiaSmi ? { nvidiaSmi: flags.nvidiaSmi } : {}),
        ...(only ? { only } : {}),
      });
      let gpus: typeof foundGpus = [];
      // Given, read from the file, or this machine's: the last two again on SIGHUP. GPUs found
      // are added when none are named.
      const readResources = () => {
        const text = flags.resources ?? (flags.resourcesFile ? fs.readFileSync(flags.resourcesFile, 'utf8').trim() : undefined);
        let parsed = parseResources(text ?? agentLib.detectResources(sandboxDir ?? workDir));
        if (parsed.isEmpty()) throw new Error('names no resources');
        const named = parsed.toJSON().find((r) => r.name === 'gpus')?.value;
        const offered = agentLib.gpusToOffer(named, foundGpus);
        if ('problem' in offered) throw new Error(offered.problem);
        gpus = offered.gpus;
        if (named === undefined && gpus.length) parsed = parseResources(`${parsed.toString()};gpus:${gpus.length}`);
        return parsed;
      };
      let resources: ReturnType<typeof readResources>;
      let attributes;
      try {
        resources = readResources();
      } catch (err) {
        fail(`${flags.resourcesFile && !flags.resources ? '--resources-file' : '--resources'}: ${(err as Error).message}`);
        return;
      }
      try {
        attributes = agentLib.withGpuModel(parseAttributes(flags.attributes ?? ''), gpus);
      } catch (err) {
        fail((err as Error).message);
        return;
      }
      const registrationTimeoutMs = agentLib.durationMs(flags.executorRegistrationTimeout);
      if (flags.executorRegistrationTimeout !== undefined && registrationTimeoutMs === undefined) {
        fail(`--executor-registration-timeout: '${flags.executorRegistrationTimeout}' is not a duration such as 60s or 2mins`);
        return;
      }
      const executorApiPort = flags.executorApiPort === undefined ? undefined : Number(flags.executorApiPort);
      if (executorApiPort !== undefined && !(Number.isInteger(executorApiPort) && executorApiPort >= 0 && executorApiPort < 65_536)) {
        fail(`--executor-api-port: '${flags.executorApiPort}' is not a port`);
        return;
      }
      // Images, ports, isolation and volumes, GC and logs (agent-flags.ts).
      let more: ReturnType<typeof agentFlagOptions>;
      try {
        more = agentFlagOptions(flags, agentLib, resources);
      } catch (err) {
        fail((err as Error).message);
        return;
      }
      // Modules (docs/modules.md): one that cannot be loaded stops the start.
      let loaded: Awaited<ReturnType<typeof loadAgentModules>>;
      try {
        loaded = await loadAgentModules(flags.modules ?? (process.env.ARBITER_MODULES || undefined));
      } catch (err) {
        fail(`The agent did not start: ${(err as Error).message}`);
        return;
      }
      const agent = new agentLib.Agent({
        ...(loaded ? { modules: loaded.modules } : {}),
        master: master.toString(),
        token,
        hostname,
        resources: resources.toJSON(),
        attributes,
        workDir,
        killTasksOnExit: flags.killTasksOnExit,
        images: more.images,
        logs: more.logs,
        tasks: {
          ...more.tasks,
          ...(sandboxDir ? { sandboxDir } : {}),
          ...(gpus.length ? { gpus: { gpus } } : {}),
        },
        ...(ca ? { ca } : {}),
        ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
        gc: more.gc,
        oversubscription: more.oversubscription,
        executors: {
          ...(registrationTimeoutMs !== undefined ? { registrationTimeoutMs } : {}),
          ...(flags.executorApiAddress ? { host: flags.executorApiAddress } : {}),
          ...(executorApiPort !== undefined ? { port: executorApiPort } : {}),
        },
      });
      if (flags.token)
        agent.log.warn(
          '--token puts the token in the process list, readable by every user of this machine; use --token-file or ARBITER_AGENT_TOKEN',
        );
      agent.log.info({ master: master.toString(), hostname, resources: resources.toString(), workDir }, 'agent starting');
      loaded?.attach(agent.log);
      agent.start();
      const reread = () => {
        let next;
        try {
          next = readResources();
        } catch (err) {
          agent.log.error({ err: (err as Error).message }, 'SIGHUP: resources not changed');
          return;
        }
        if (next.equals(resources)) {
          agent.log.info({ resources: next.toString() }, 'SIGHUP: resources unchanged');
          return;
        }
        resources = next;
        agent.updateResources(next.toJSON()).catch(() => undefined);
      };
      process.on('SIGHUP', reread);
      const signal = await untilSignal();
      process.off('SIGHUP', reread);
      agent.log.info({ signal }, 'agent stopping');
      await agent.stop();
      await loaded?.modules.close();
    });
  // Its operations on a running cluster: `agent drain|undrain|...` (ops/agents.ts).
  registerAgentOperations(command);
}
