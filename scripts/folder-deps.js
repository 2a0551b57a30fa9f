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
// There are no exceptions. Above the kernel and infrastructure, the folders go in this order
// (lowest first; each imports only folders before it):
//   auth, audit, principals, acls, leadership, health, realtime (the socket.io server, the
//   operators' event stream), master (the cluster state, its registries, the offer book, the
//   outbox, and read-only views of what the master keeps: LiveView, usage, what sits on
//   agents);
//   the nouns: executors (started by accepts, ended by their agents' reports), agents, frameworks, whitelist, reservations, volumes (persistent volumes on
//   reserved disk), roles, maintenance, allocation
//   (the loop, inverse offers, the cycles' records), tasks, operations (operation feedback), offers, history (with why a
//   framework got offers or not);
//   the use cases that span nouns: agent-lifecycle (registration, liveness, membership, drain,
//   maintenance, removal), framework-lifecycle (subscription, failover, removal, the operator's
//   teardown), cluster-sync (the state rebuilt each term and kept in step with operator
//   changes), gateways (each socket message to its handler);
//   the views across nouns: cluster, what-if, sandboxes (a task's files, relayed to its agent), mesos,
//   mesos-operator (Mesos's operator API, on mesos/'s endpoints and the REST services).
// A noun's Nest module provides its own handlers; a handler that must act on several nouns
// belongs to a use-case folder, not to the lowest of them.
// `npm test`'s lint step runs it; `node scripts/folder-deps.js --graph` prints the graph.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'apps/control-plane/src');

/** Folders every other may use and that use no noun. */
const INFRASTRUCTURE = new Set(['database', 'errors', 'app', 'common', 'config']);
const KERNEL = 'kernel';

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
  const problems = [];

  const upward = all.filter((e) => (e.from === KERNEL || INFRASTRUCTURE.has(e.from)) && isNoun(e.to));
  if (upward.length) {
    problems.push(
      `The kernel and infrastructure (${[...INFRASTRUCTURE].join(', ')}) import no noun folder:\n${upward.map(where).join('\n')}`,
    );
  }
  const toRoot = all.filter((e) => e.from !== '' && e.to === '');
  if (toRoot.length) {
    problems.push(`No folder imports the composition root (the files at src/ itself):\n${toRoot.map(where).join('\n')}`);
  }
  const between = all.filter((e) => e.from !== '');
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
