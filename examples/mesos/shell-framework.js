#!/usr/bin/env node
/**
 * A Mesos framework, written as for a Mesos master with the third-party `mesos-framework`
 * client from npm (Mesos's v1 scheduler HTTP API, JSON), that runs shell commands as tasks. It
 * runs on Arbiter unchanged: only the master's address is Arbiter's. (`mesos-framework` sends no
 * credentials, so the control plane must admit anonymous Mesos frameworks:
 * ARBITER_MESOS_ALLOW_ANONYMOUS=true, Mesos's --authenticate_http_frameworks=false; the ACLs for
 * principal type ANY still apply.)
 *
 *   node examples/mesos/shell-framework.js --master http://127.0.0.1:8080 \
 *     --task 'hello:2:echo hello from $HOST; sleep 1' --task 'service:1:sleep 600'
 *
 * Each `--task NAME:INSTANCES:COMMAND` is launched INSTANCES times (tasks NAME-1, NAME-2, ...),
 * as --user (default: the user running this).
 * Once every task is launched, offers are declined for --refuse-seconds (default 60). What
 * happens is printed as one JSON line per event (subscribed, update, declined). Commands on
 * stdin: `kill NAME-N` kills a task, `reconcile` asks for the state of every task,
 * `teardown` ends the framework and exits. When the control plane goes away the framework
 * subscribes again with its framework id, as Mesos frameworks do after a master failover.
 */
'use strict';

const os = require('node:os');
const readline = require('node:readline');
const { Scheduler, Mesos } = require('mesos-framework');

const mesos = Mesos.getMesos();

function parseArgs(argv) {
  const opts = {
    master: 'http://127.0.0.1:8080',
    tasks: {},
    user: os.userInfo().username,
    refuseSeconds: 60,
    name: 'mesos-shell-framework',
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--master':
        opts.master = value;
        i++;
        break;
      case '--user':
        opts.user = value;
        i++;
        break;
      case '--name':
        opts.name = value;
        i++;
        break;
      case '--refuse-seconds':
        opts.refuseSeconds = Number(value);
        i++;
        break;
      case '--task': {
        const m = /^([A-Za-z0-9_-]+):(\d+):(.+)$/.exec(value || '');
        if (!m) throw new Error(`--task takes NAME:INSTANCES:COMMAND, not '${value}'`);
        opts.tasks[m[1]] = {
          instances: Number(m[2]),
          // CommandInfo(uris, environment, shell, value, arguments, user)
          commandInfo: new mesos.CommandInfo(null, null, true, m[3], null, null),
          resources: { cpus: 0.1, mem: 32, ports: 0, disk: 0 },
        };
        i++;
        break;
      }
      default:
        throw new Error(`unknown argument '${argv[i]}'`);
    }
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const master = new URL(opts.master);
const print = (event, fields) => console.log(JSON.stringify({ event, ...fields }));
const defaults = require('mesos-framework/lib/schedulerHandlers');

const scheduler = new Scheduler({
  masterUrl: master.hostname,
  port: Number(master.port || 80),
  frameworkName: opts.name,
  user: opts.user,
  // Longer than the master's heartbeat interval (15 s), as the Mesos docs advise.
  masterConnectionTimeout: 45,
  frameworkFailoverTimeout: 3600,
  restartStates: ['TASK_FAILED', 'TASK_LOST', 'TASK_ERROR'],
  logging: { path: os.tmpdir(), fileName: `${opts.name}.log`, level: 'warn' },
  tasks: opts.tasks,
  handlers: {
    OFFERS(offers) {
      if (this.pendingTasks.length > 0) {
        defaults.OFFERS.call(this, offers);
        return;
      }
      // Nothing left to launch: no offers of these agents for a while.
      for (const offer of offers.offers) {
        this.decline([offer.id], new mesos.Filters(opts.refuseSeconds));
        print('declined', { offerId: offer.id.value, agentId: offer.agent_id.value, refuseSeconds: opts.refuseSeconds });
      }
    },
  },
});

scheduler.on('subscribed', (s) => print('subscribed', { frameworkId: s.frameworkId }));
scheduler.on('update', (u) =>
  print('update', {
    taskId: u.status.task_id.value,
    state: u.status.state,
    reason: u.status.reason || null,
    message: u.status.message || null,
  }),
);
// Subscribing failed (the master is away, restarting, or not leading yet): one more attempt after a back-off.
let retry;
scheduler.on('error', (error) => {
  const message = error && error.message ? error.message : String(error);
  print('error', { message });
  if (scheduler.mesosStreamId !== undefined || retry || !/problem with the request|Error registering/.test(message)) return;
  scheduler.backOff();
  retry = setTimeout(() => {
    retry = undefined;
    scheduler.subscribe();
  }, scheduler.subscribeBackoffTime);
});
scheduler.on('ready', () => scheduler.subscribe());

/** The task launched as NAME-N (its Mesos task id is `<framework>.<NAME-N>.<uuid>`). */
const launched = (name) => scheduler.launchedTasks.find((t) => t.name === name);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, arg] = line.trim().split(/\s+/);
  if (command === 'kill') {
    const task = launched(arg);
    if (task) scheduler.kill(task.taskId, task.runtimeInfo.agentId);
    else print('error', { message: `no launched task ${arg}` });
  } else if (command === 'reconcile') {
    scheduler.reconcile();
  } else if (command === 'teardown') {
    scheduler.teardown();
    scheduler.once('sent_teardown', () => process.exit(0));
  }
});
