'use client';
/**
 * A task's output and sandbox, relayed by the control plane from its agent: its stdout or
 * stderr (or any file of the sandbox) with live follow, and a browser of the sandbox's folders
 * with downloads. Follow reads on from the last offset every second (Mesos's /files/read); a log
 * rotated meanwhile (shorter than what was read) is read again from its start.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ErrorPanel, Loading, Panel } from '@/components/ui';
import { api, call, type Schemas } from '@/lib/api';
import { isTerminalTaskState } from '@arbiter/contracts/task-states';

/** What the viewer keeps of a file: its last bytes, enough for a screen of logs and then some. */
const KEEP_CHARS = 256 * 1024;
/** How far back from the end a file is first shown. */
const FIRST_BYTES = 64 * 1024;
const FOLLOW_MS = 1000;

const browseQuery = (id: string, path: string) => ({
  queryKey: ['tasks', 'files', id, path],
  queryFn: () => call(api.GET('/api/v1/tasks/{id}/files', { params: { path: { id }, query: { path } } })),
});

const read = (id: string, path: string, offset: number) =>
  call(api.GET('/api/v1/tasks/{id}/files/read', { params: { path: { id }, query: { path, offset } } }));

const downloadHref = (id: string, path: string) =>
  `/api/v1/tasks/${encodeURIComponent(id)}/files/download?path=${encodeURIComponent(path)}`;

/** A file's text from the end back FIRST_BYTES, then what is written to it while `follow` holds. */
function useFileText(id: string, path: string, follow: boolean): { text: string; error: unknown; loading: boolean } {
  const [state, setState] = useState<{ text: string; error: unknown; loading: boolean }>({ text: '', error: null, loading: true });
  const offset = useRef<number | null>(null);
  useEffect(() => {
    offset.current = null;
    setState({ text: '', error: null, loading: true });
  }, [id, path]);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const step = async () => {
      try {
        offset.current ??= Math.max(0, (await read(id, path, -1)).offset - FIRST_BYTES);
        for (;;) {
          const r = await read(id, path, offset.current);
          if (stopped) return;
          if (r.size < offset.current) {
            // Rotated: what is there now is new.
            offset.current = 0;
            setState({ text: '', error: null, loading: false });
            continue;
          }
          offset.current = r.offset + r.length;
          setState((s) => ({ text: (s.text + r.data).slice(-KEEP_CHARS), error: null, loading: false }));
          if (r.offset + r.length >= r.size || r.length === 0) break;
        }
      } catch (err) {
        if (!stopped) setState((s) => ({ ...s, error: err, loading: false }));
      }
      if (!stopped && follow) timer = setTimeout(() => void step(), FOLLOW_MS);
    };
    void step();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, path, follow]);
  return state;
}

function FileView({ id, path, live }: { id: string; path: string; live: boolean }) {
  const [follow, setFollow] = useState(live);
  useEffect(() => setFollow(live), [live]);
  const { text, error, loading } = useFileText(id, path, follow);
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (follow && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [text, follow]);
  return (
    <>
      <div className="filters">
        <label>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <a href={downloadHref(id, path)} download>
          Download {path}
        </a>
      </div>
      {error ? <ErrorPanel error={error} title={`Could not read ${path}`} /> : null}
      {loading && !error ? (
        <Loading rows={4} label={`Loading ${path}`} />
      ) : (
        <pre className="log" ref={pre} aria-label={`Contents of ${path}`}>
          {text || (error ? '' : '(empty)')}
        </pre>
      )}
    </>
  );
}

function SandboxBrowser({ id, onOpen }: { id: string; onOpen: (path: string) => void }) {
  const [dir, setDir] = useState('');
  const listing = useQuery(browseQuery(id, dir));
  const parts = dir ? dir.split('/') : [];
  return (
    <Panel title="Sandbox">
      <nav className="filters" aria-label="Sandbox folder">
        <button type="button" className="link" onClick={() => setDir('')}>
          sandbox
        </button>
        {parts.map((p, i) => (
          <span key={`${i}-${p}`}>
            /{' '}
            <button type="button" className="link" onClick={() => setDir(parts.slice(0, i + 1).join('/'))}>
              {p}
            </button>
          </span>
        ))}
      </nav>
      {listing.error ? <ErrorPanel error={listing.error} onRetry={() => void listing.refetch()} /> : null}
      {!listing.data && !listing.error ? <Loading rows={3} label="Loading the sandbox" /> : null}
      {listing.data ? (
        <div className="table-wrap">
          <table className="data" aria-label="Sandbox files">
            <thead>
              <tr>
                <th>Name</th>
                <th>Size</th>
                <th>Mode</th>
                <th>Modified</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {listing.data.entries.map((e: Schemas['FileEntryDto']) => {
                const name = e.path.split('/').pop() ?? e.path;
                return (
                  <tr key={e.path}>
                    <td className="mono">
                      {e.type === 'directory' ? (
                        <button type="button" className="link" onClick={() => setDir(e.path)}>
                          {name}/
                        </button>
                      ) : e.type === 'file' ? (
                        <button type="button" className="link" onClick={() => onOpen(e.path)}>
                          {name}
                        </button>
                      ) : (
                        name
                      )}
                    </td>
                    <td className="num">{e.size}</td>
                    <td className="mono">{e.mode}</td>
                    <td>{new Date(e.mtime * 1000).toLocaleString()}</td>
                    <td>{e.type === 'file' ? <a href={downloadHref(id, e.path)}>download</a> : null}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {listing.data?.truncated ? <p className="muted">More entries than one answer holds; the rest are not shown.</p> : null}
    </Panel>
  );
}

/**
 * The log the Output panel opens on: stdout, but stderr for an ended task that wrote only there
 * (a failed command says why on stderr). A running task's stays stdout: its sizes still change.
 */
function firstLog(root: Schemas['FilesBrowseDto'] | undefined, ended: boolean): string {
  if (!root) return 'stdout';
  const size = (path: string) => root.entries.find((e) => e.path === path)?.size;
  return ended && size(root.logs.stdout) === 0 && (size(root.logs.stderr) ?? 0) > 0 ? root.logs.stderr : root.logs.stdout;
}

/** The task's logs (stdout, stderr, or a file opened from the sandbox) and its sandbox. */
export function TaskSandbox({ task }: { task: Schemas['TaskDto'] }) {
  const root = useQuery(browseQuery(task.id, ''));
  const [open, setOpen] = useState<string | null>(null);
  const logs = root.data?.logs;
  const live = !isTerminalTaskState(task.state);
  const shown = open ?? firstLog(root.data, !live);
  const choose = (path: string) => (
    <button
      type="button"
      className={shown === path ? 'primary small' : 'small'}
      aria-pressed={shown === path}
      onClick={() => setOpen(path)}
    >
      {path.split('/').pop()}
    </button>
  );
  return (
    <>
      <Panel title="Output" actions={logs ? <>{[choose(logs.stdout), choose(logs.stderr)]}</> : null}>
        {root.error ? (
          <ErrorPanel error={root.error} title="Could not reach the sandbox" onRetry={() => void root.refetch()} />
        ) : (
          <FileView key={shown} id={task.id} path={shown} live={live} />
        )}
      </Panel>
      {root.error ? null : <SandboxBrowser id={task.id} onOpen={setOpen} />}
    </>
  );
}
