#!/usr/bin/env node
/**
 * The throttle example on Mesos's v1 scheduler HTTP API, spoken directly (JSON and RecordIO, no
 * client library), as it would run against a Mesos master: a scheduler that builds each TaskInfo
 * with an ExecutorInfo whose command runs `/bin/sh <dir>/throttle-executor.sh`, which starts the
 * custom executor throttle-executor.js; that one executor process per agent runs every task.
 *
 *   node examples/mesos/throttle-framework.js --master http://127.0.0.1:8080 --tasks 6
 *
 * Options: --tasks N (6), --throttle N (2 at a time per executor), --work-ms MS (500 per task),
 * --role ROLE, --user USER (the user executors and tasks run as; default: the user running this).
 * The token (--token, or ARBITER_FRAMEWORK_TOKEN) is a framework principal's, sent as
 * `Authorization: Bearer`. It prints one JSON line per event (subscribed, launch, update) and,
 * once every task has ended, tears the framework down (which ends its executors) and prints
 * {"tasks":N,"finished":N,"executorProcesses":P}; exit 0 when every task finished.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { events, post } = require('./recordio');

function parseArgs(argv) {
  const opts = {
    master: 'http://127.0.0.1:8080',
    token: process.env.ARBITER_FRAMEWORK_TOKEN,
    tasks: 6,
    throttle: 2,
    workMs: 500,
    role: 'throttle',
    user: os.userInfo().username,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const key = {
      '--master': 'master',
      '--token': 'token',
      '--tasks': 'tasks',
      '--throttle': 'throttle',
      '--work-ms': 'workMs',
      '--role': 'role',
      '--dir': 'dir',
      '--user': 'user',
    }[flag];
    if (!key || value === undefined) throw new Error(`unknown argument '${flag}'`);
    opts[key] = ['tasks', 'throttle', 'workMs'].includes(key) ? Number(value) : value;
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const print = (event, fields) => console.log(JSON.stringify({ event, ...fields }));
const url = new URL('/api/v1/scheduler', opts.master).toString();
const auth = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
const scalar = (name, value) => ({ name, type: 'SCALAR', scalar: { value } });
const json = (value) => Buffer.from(JSON.stringify(value)).toString('base64');

// <dir>/throttle-executor.sh, readable by the user the agent runs executors as.
// Not under /tmp, which the agent makes private to each executor and task.
const dir = opts.dir || fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'arbiter-throttle-'));
fs.chmodSync(dir, 0o755);
// The executor's program goes beside it: a checkout under /tmp is out of the executor's sight.
for (const file of ['throttle-executor.js', 'recordio.js']) fs.copyFileSync(path.join(__dirname, file), path.join(dir, file));
const script = path.join(dir, 'throttle-executor.sh');
fs.writeFileSync(
  script,
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(dir, 'throttle-executor.js'))} "$@"\n`,
  { mode: 0o755 },
);

const pending = Array.from({ length: opts.tasks }, (_, i) => `throttle-${i}`);
const ended = new Map();
const pids = new Set();
const withExecutor = new Set();
let frameworkId;
let streamId;
const call = (body) => post(url, { ...auth, 'Mesos-Stream-Id': streamId }, { framework_id: frameworkId, ...body });

function offered(offer) {
  const have = (name) => (offer.resources.find((r) => r.name === name && r.scalar) || { scalar: { value: 0 } }).scalar.value;
  let [cpus, mem] = [have('cpus'), have('mem')];
  const agent = offer.agent_id.value;
  if (!withExecutor.has(agent)) [cpus, mem] = [cpus - 0.1, mem - 64];
  const executor = {
    executor_id: { value: 'throttle' },
    framework_id: frameworkId,
    name: 'throttle executor',
    command: { value: `/bin/sh ${script}`, shell: true },
    resources: [scalar('cpus', 0.1), scalar('mem', 64)],
    data: json({ throttle: opts.throttle }),
  };
  const tasks = [];
  while (pending.length && cpus >= 0.1 - 1e-9 && mem >= 16) {
    const id = pending.shift();
    tasks.push({
      name: id,
      task_id: { value: id },
      agent_id: offer.agent_id,
      resources: [scalar('cpus', 0.1), scalar('mem', 16)],
      executor,
      data: json({ workMs: opts.workMs }),
    });
    [cpus, mem] = [cpus - 0.1, mem - 16];
  }
  if (!tasks.length)
    return call({ type: 'DECLINE', decline: { offer_ids: [offer.id], filters: { refuse_seconds: pending.length ? 1 : 3600 } } });
  withExecutor.add(agent);
  print('launch', { tasks: tasks.map((t) => t.task_id.value), hostname: offer.hostname, executorId: 'throttle' });
  return call({ type: 'ACCEPT', accept: { offer_ids: [offer.id], operations: [{ type: 'LAUNCH', launch: { task_infos: tasks } }] } });
}

async function updated(status) {
  if (status.uuid)
    await call({ type: 'ACKNOWLEDGE', acknowledge: { agent_id: status.agent_id, task_id: status.task_id, uuid: status.uuid } });
  const taskId = status.task_id.value;
  const pid = /pid (\d+)/.exec(status.message || '');
  if (pid) pids.add(`${status.agent_id.value}/${pid[1]}`);
  print('update', { taskId, state: status.state, message: status.message || null });
  if (!['TASK_STAGING', 'TASK_STARTING', 'TASK_RUNNING', 'TASK_KILLING'].includes(status.state)) ended.set(taskId, status.state);
  if (ended.size < opts.tasks) return;
  await call({ type: 'TEARDOWN' });
  const finished = [...ended.values()].filter((s) => s === 'TASK_FINISHED').length;
  console.log(JSON.stringify({ tasks: opts.tasks, finished, executorProcesses: pids.size }));
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(finished === opts.tasks ? 0 : 1);
}

async function main() {
  const response = await post(url, auth, {
    type: 'SUBSCRIBE',
    subscribe: { framework_info: { user: opts.user, name: 'throttle', roles: [opts.role], capabilities: [{ type: 'MULTI_ROLE' }] } },
  });
  streamId = response.headers.get('mesos-stream-id');
  for await (const event of events(response)) {
    if (event.type === 'SUBSCRIBED') {
      frameworkId = event.subscribed.framework_id;
      print('subscribed', { frameworkId: frameworkId.value });
    } else if (event.type === 'OFFERS') {
      for (const offer of event.offers.offers) await offered(offer);
      if (!pending.length) await call({ type: 'SUPPRESS', suppress: { roles: [opts.role] } });
    } else if (event.type === 'UPDATE') {
      await updated(event.update.status);
    } else if (event.type === 'FAILURE' || event.type === 'ERROR') {
      print(event.type.toLowerCase(), event.failure || event.error);
    }
  }
  throw new Error('the master closed the subscription');
}

main().catch((err) => {
  print('error', { message: err.message });
  process.exit(1);
});
