#!/usr/bin/env node
// The control plane's folders depend on each other one way (docs/ARCHITECTURE.md, after the
// packages' boundaries). This reads every import between `apps/control-plane/src/<folder>/`
// folders (specs aside: a test may reach anywhere) and fails, printing the imports at fault
// (file:line), on:
//   - a circle: two folders importing each other, or a longer loop;
//   - the kernel importing a noun folder (it knows cluster state, clock and queues, no noun);
//   - infrastructure (database/, errors/, app/, common/, config/) importing a noun
//     folder: each noun registers its entities and error codes itself, and the composition
//     root (the files at src/ itself: app.module.ts, master-life.ts, server.ts, main.ts) is the one
//     place that lists the nouns;
//   - a folder importing the composition root (it sits above every folder).
// `npm test`'s lint step runs it; `node scripts/folder-deps.js --graph` prints the graph.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'apps/control-plane/src');

/** Folders every other may use and that use no noun. */
const INFRASTRUCTURE = new Set(['database', 'errors', 'app', 'common', 'config']);
const KERNEL = 'kernel';

/**
 * Imports that break the rules today: each is `<file under src>:<folder it imports>`. They are
 * every import of a noun by kernel/ or by infrastructure, and every import that goes up this
 * order of the noun folders (lowest first): auth, audit, principals, acls, leadership, health,
 * realtime (the socket.io server, the operators' event stream), master (the cluster state, its
 * registries, the offer book and the outbox), executors, agents, frameworks, whitelist, roles, reservations,
 * maintenance, tasks, offers, allocation, history, gateways (each socket message to its
 * handler), cluster, what-if, mesos. With them left out the folders form no circle. Most are the master's wiring
 * (master.module.ts provides every handler) and the handlers that call
 * handlers of nouns above them. An entry that no longer matches an import fails, so the list
 * only shrinks: empty it, then delete it.
 */
const ALLOWED = new Set([
  // agents/
  'agents/agent-admission.ts:maintenance',
  'agents/agent-drain.handler.ts:maintenance',
  'agents/agent-drain.handler.ts:offers',
  'agents/agent-drain.handler.ts:tasks',
  'agents/agent-liveness.handler.ts:offers',
  'agents/agent-liveness.handler.ts:tasks',
  'agents/agent-membership.handler.ts:allocation',
  'agents/agent-membership.handler.ts:offers',
  'agents/agent-membership.handler.ts:reservations',
  'agents/agent-removal.handler.ts:allocation',
  'agents/agent-removal.handler.ts:offers',
  'agents/agent-removal.handler.ts:tasks',
  'agents/agent-sessions.handler.ts:allocation',
  'agents/agent-sessions.handler.ts:maintenance',
  'agents/agent-sessions.handler.ts:offers',
  'agents/agent-sessions.handler.ts:tasks',
  'agents/agent-sessions.repository.ts:reservations',
  'agents/agents.dto.ts:maintenance',
  'agents/agents.repository.ts:maintenance',
  'agents/agents.repository.ts:offers',
  'agents/agents.repository.ts:reservations',
  'agents/agents.repository.ts:tasks',
  'agents/agents.repository.ts:whitelist',
  'agents/agents.service.ts:allocation',
  // frameworks/
  'frameworks/framework-explain.service.ts:history',
  'frameworks/framework-failover.handler.ts:allocation',
  'frameworks/framework-failover.handler.ts:offers',
  'frameworks/framework-removal.handler.ts:allocation',
  'frameworks/framework-removal.handler.ts:offers',
  'frameworks/framework-removal.handler.ts:tasks',
  'frameworks/framework-sessions.handler.ts:allocation',
  'frameworks/framework-sessions.handler.ts:offers',
  'frameworks/framework-sessions.handler.ts:tasks',
  'frameworks/frameworks.module.ts:history',
  'frameworks/frameworks.service.ts:allocation',
  // maintenance/
  'maintenance/maintenance-sync.handler.ts:allocation',
  // master/
  'master/master.module.ts:agents',
  'master/master.module.ts:allocation',
  'master/master.module.ts:executors',
  'master/master.module.ts:frameworks',
  'master/master.module.ts:gateways',
  'master/master.module.ts:history',
  'master/master.module.ts:maintenance',
  'master/master.module.ts:offers',
  'master/master.module.ts:reservations',
  'master/master.module.ts:tasks',
  // offers/
  'offers/reservation-accepts.handler.ts:allocation',
  // reservations/
  'reservations/reservations.service.ts:allocation',
  // roles/
  'roles/roles.repository.ts:reservations',
  'roles/roles.service.ts:allocation',
]);

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return /\.tsx?$/.test(e.name) && !/\.spec\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The folder a path under src/ belongs to; '' for a file at src/ itself (main.ts, the composition root). */
function folderOf(file) {
  const rel = path.relative(src, file);
  const parts = rel.split(path.sep);
  return parts.length > 1 ? parts[0] : '';
}

/** Every import between folders: { file, line, from, to, spec }. */
function imports() {
  const edges = [];
  for (const file of walk(src)) {
    const text = fs.readFileSync(file, 'utf8');
    const from = folderOf(file);
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), ref.fileName);
      if (!target.startsWith(src + path.sep)) continue;
      // As TypeScript resolves it: `x.ts` or `x.tsx` before the folder `x/`.
      const resolved = ['.ts', '.tsx', '/index.ts'].map((ext) => target + ext).find((f) => fs.existsSync(f)) ?? target;
      const to = folderOf(resolved);
      if (to === from) continue;
      const line = text.slice(0, ref.pos).split('\n').length;
      edges.push({ file: path.relative(src, file), line, from, to, spec: ref.fileName });
    }
  }
  return edges;
}

/** Strongly connected components of the folder graph (Tarjan), those of more than one folder. */
function circles(edges) {
  const next = new Map();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    if (!next.has(e.to)) next.set(e.to, new Set());
    next.get(e.from).add(e.to);
  }
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

/** The shortest loop among a circle's imports, folder by folder, with the imports of each step. */
function loopOf(inside) {
  const next = new Map();
  for (const e of inside) next.set(e.from, [...new Set([...(next.get(e.from) ?? []), e.to])]);
  let best;
  for (const start of [...next.keys()].sort()) {
    const back = new Map([[start, null]]);
    const queue = [start];
    let found;
    while (queue.length && !found) {
      const v = queue.shift();
      for (const w of next.get(v) ?? []) {
        if (w === start) found = v;
        else if (!back.has(w)) {
          back.set(w, v);
          queue.push(w);
        }
      }
    }
    if (!found) continue;
    const path = [start];
    for (let v = found; v !== start; v = back.get(v)) path.splice(1, 0, v);
    if (!best || path.length < best.length) best = path;
  }
  const steps = best.map((from, i) => [from, best[(i + 1) % best.length]]);
  return `one loop: ${[...best, best[0]].join(' -> ')}\n${steps
    .map(([from, to]) =>
      inside
        .filter((e) => e.from === from && e.to === to)
        .map(where)
        .join('\n'),
    )
    .join('\n')}`;
}

const isNoun = (folder) => folder !== '' && folder !== KERNEL && !INFRASTRUCTURE.has(folder);
const where = (e) => `  apps/control-plane/src/${e.file}:${e.line}  imports '${e.spec}'`;

function check() {
  const all = imports();
  const key = (e) => `${e.file}:${e.to}`;
  const used = new Set(all.map(key));
  const edges = all.filter((e) => !ALLOWED.has(key(e)));
  const problems = [];

  const stale = [...ALLOWED].filter((k) => !used.has(k));
  if (stale.length) {
    problems.push(
      `Allowed imports that no longer exist (remove them from ALLOWED in scripts/folder-deps.js):\n${stale.map((k) => `  ${k}`).join('\n')}`,
    );
  }
  const upward = edges.filter((e) => (e.from === KERNEL || INFRASTRUCTURE.has(e.from)) && isNoun(e.to));
  if (upward.length) {
    problems.push(
      `The kernel and infrastructure (${[...INFRASTRUCTURE].join(', ')}) import no noun folder:\n${upward.map(where).join('\n')}`,
    );
  }
  const toRoot = all.filter((e) => e.from !== '' && e.to === '');
  if (toRoot.length) {
    problems.push(`No folder imports the composition root (the files at src/ itself):\n${toRoot.map(where).join('\n')}`);
  }
  const between = edges.filter((e) => e.from !== '');
  for (const component of circles(between)) {
    const inside = between.filter((e) => component.includes(e.from) && component.includes(e.to));
    problems.push(`Folders in a circle (${component.join(', ')}); ${loopOf(inside)}`);
  }
  return { all, problems };
}

if (require.main === module) {
  const { all, problems } = check();
  if (process.argv.includes('--graph')) {
    const pairs = new Map();
    for (const e of all) pairs.set(`${e.from || '<root>'} -> ${e.to}`, (pairs.get(`${e.from || '<root>'} -> ${e.to}`) ?? 0) + 1);
    for (const [pair, n] of [...pairs].sort()) console.log(`${pair} (${n})`);
  }
  if (problems.length) {
    console.error(`Folder dependencies of the control plane (scripts/folder-deps.js):\n\n${problems.join('\n\n')}`);
    process.exit(1);
  }
  console.log('folder-deps: the control plane folders depend on each other one way');
}

module.exports = { check, imports, circles };
