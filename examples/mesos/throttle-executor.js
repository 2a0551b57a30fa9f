#!/usr/bin/env node
/**
 * The throttle example's executor on Mesos's v1 executor HTTP API, spoken directly (JSON and
 * RecordIO, no client library), as it would run on a Mesos agent. The agent starts it (through
 * throttle-executor.sh) with MESOS_AGENT_ENDPOINT, MESOS_FRAMEWORK_ID, MESOS_EXECUTOR_ID and
 * MESOS_EXECUTOR_AUTHENTICATION_TOKEN in its environment. It SUBSCRIBEs, then runs every task of
 * each LAUNCH event in this one process, at most `throttle` at a time (ExecutorInfo.data, JSON),
 * each working for `workMs` (TaskInfo.data, JSON), and reports them with UPDATE calls
 * (TASK_RUNNING, TASK_FINISHED; TASK_KILLED on KILL) naming its process id. It keeps each update
 * until the agent's ACKNOWLEDGED event, and exits on SHUTDOWN or when the agent goes away.
 */
'use strict';

const { randomUUID } = require('node:crypto');
const { events, post } = require('./recordio');

const env = process.env;
const url = `http://${env.MESOS_AGENT_ENDPOINT}/api/v1/executor`;
const headers = env.MESOS_EXECUTOR_AUTHENTICATION_TOKEN ? { Authorization: `Bearer ${env.MESOS_EXECUTOR_AUTHENTICATION_TOKEN}` } : {};
const ids = { framework_id: { value: env.MESOS_FRAMEWORK_ID }, executor_id: { value: env.MESOS_EXECUTOR_ID } };
const me = `pid ${process.pid}`;
const decode = (data) => {
  try {
    return data ? JSON.parse(Buffer.from(data, 'base64').toString('utf8')) : {};
  } catch {
    return {};
  }
};

let throttle = 2;
const waiting = [];
const running = new Map();
/** Updates the agent has not acknowledged yet, by uuid. */
const unacknowledged = new Map();
/**
 * The last update's call: the next goes once it is answered. Updates go one at a time, in the
 * order made, as Mesos's executor library sends its calls on one connection; each on a
 * connection of its own, a task's FINISHED could overtake its RUNNING, and the agent takes
 * nothing after a task's end.
 */
let sending = Promise.resolve();

function update(taskId, state, message) {
  const status = {
    task_id: { value: taskId },
    state,
    source: 'SOURCE_EXECUTOR',
    executor_id: ids.executor_id,
    uuid: Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64'),
    timestamp: Date.now() / 1000,
    message: `${me}: ${message}`,
  };
  unacknowledged.set(status.uuid, status);
  sending = sending
    .then(() => post(url, headers, { ...ids, type: 'UPDATE', update: { status } }))
    .then((response) => response.body?.cancel())
    .catch((err) => console.error(err.message));
}

function next() {
  while (running.size < throttle && waiting.length) {
    const task = waiting.shift();
    const id = task.task_id.value;
    const workMs = Number(decode(task.data).workMs || 500);
    running.set(
      id,
      setTimeout(() => {
        running.delete(id);
        update(id, 'TASK_FINISHED', `done after ${workMs} ms`);
        next();
      }, workMs),
    );
    update(id, 'TASK_RUNNING', `running, ${running.size} of ${throttle} at a time`);
  }
}

async function main() {
  const subscribe = { unacknowledged_tasks: [], unacknowledged_updates: [] };
  const response = await post(url, headers, { ...ids, type: 'SUBSCRIBE', subscribe });
  for await (const event of events(response)) {
    switch (event.type) {
      case 'SUBSCRIBED':
        throttle = Number(decode(event.subscribed.executor_info.data).throttle) || throttle;
        break;
      case 'LAUNCH':
        waiting.push(event.launch.task);
        next();
        break;
      case 'KILL': {
        const id = event.kill.task_id.value;
        clearTimeout(running.get(id));
        running.delete(id);
        const queued = waiting.findIndex((t) => t.task_id.value === id);
        if (queued >= 0) waiting.splice(queued, 1);
        update(id, 'TASK_KILLED', 'killed');
        next();
        break;
      }
      case 'ACKNOWLEDGED':
        unacknowledged.delete(event.acknowledged.uuid);
        break;
      case 'SHUTDOWN':
        process.exit(0);
        break;
      case 'ERROR':
        console.error(`agent: ${event.error.message}`);
        break;
      default:
        // HEARTBEAT, MESSAGE, LAUNCH_GROUP (not used here).
        break;
    }
  }
  // The agent closed the stream: a real executor would subscribe again with `unacknowledged` (MESOS_CHECKPOINT).
  process.exit(0);
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
