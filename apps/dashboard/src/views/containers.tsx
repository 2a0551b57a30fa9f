/** Containers: a task's (type, image and the digest its agent runs, volumes, port mappings) and what an agent can contain tasks with. */
import { Panel } from '@/components/ui';
import type { Schemas } from '@/lib/api';

type Task = Schemas['TaskDto'];
type Container = NonNullable<Task['container']>;
type Capabilities = NonNullable<Schemas['AgentViewDto']['capabilities']>;

const none = <span className="muted">none</span>;

function volumeSource(v: NonNullable<Container['volumes']>[number]) {
  return v.source.type === 'HOST_PATH'
    ? `host ${v.source.path}`
    : `sandbox${v.source.sandboxType === 'PARENT' ? ' (group)' : ''} ${v.source.path}`;
}

/** A task's container, as its framework gave it, with the image its agent reported running. */
export function ContainerPanel({ task }: { task: Task }) {
  const c = task.container;
  if (!c) return null;
  return (
    <Panel title="Container">
      <dl className="props">
        <dt>Type</dt>
        <dd>{c.image ? c.type : `${c.type} (no image: a plain isolated process)`}</dd>
        <dt>Image</dt>
        <dd>
          {c.image ? (
            <>
              <code>{c.image.name}</code>
              {c.image.forcePull ? <span className="badge">force pull</span> : null}
            </>
          ) : (
            none
          )}
        </dd>
        {c.image ? (
          <>
            <dt>Digest</dt>
            <dd>
              {task.containerImage ? (
                <>
                  <code>{task.containerImage.digest}</code>
                  {task.containerImage.reference !== c.image.name ? (
                    <span className="muted"> ({task.containerImage.reference})</span>
                  ) : null}
                </>
              ) : (
                <span className="muted">not reported yet</span>
              )}
            </dd>
          </>
        ) : null}
        {c.hostname ? (
          <>
            <dt>Hostname</dt>
            <dd>
              <code>{c.hostname}</code>
            </dd>
          </>
        ) : null}
        <dt>Volumes</dt>
        <dd>
          {c.volumes?.length ? (
            <ul className="plain">
              {c.volumes.map((v) => (
                <li key={v.containerPath}>
                  <code>{v.containerPath}</code> ← {volumeSource(v)} <span className="badge">{v.mode}</span>
                </li>
              ))}
            </ul>
          ) : (
            none
          )}
        </dd>
        <dt>Port mappings</dt>
        <dd>
          {c.portMappings?.length ? (
            <ul className="plain">
              {c.portMappings.map((p) => (
                <li key={`${p.hostPort}-${p.protocol}`}>
                  <code>
                    host {p.hostPort} → {p.containerPort}/{p.protocol}
                  </code>
                </li>
              ))}
            </ul>
          ) : (
            none
          )}
        </dd>
      </dl>
    </Panel>
  );
}

const list = (items: string[]) =>
  items.length
    ? items.map((i) => (
        <code key={i} style={{ marginRight: 8 }}>
          {i}
        </code>
      ))
    : none;

/** What an agent reported it can contain tasks with (null: an agent older than containers). */
export function AgentContainersPanel({ capabilities: c }: { capabilities: Capabilities | null }) {
  return (
    <Panel title="Containers">
      {c === null ? (
        <p className="muted">
          Not reported: an agent version without container support runs plain processes only; tasks with an image are refused there.
        </p>
      ) : (
        <dl className="props">
          <dt>Images</dt>
          <dd>
            {c.imagesProblem ? (
              <>
                <span className="badge warn">cannot run images</span> {c.imagesProblem}
              </>
            ) : c.runtime ? (
              <span className="badge ok">can run images</span>
            ) : (
              <span className="badge warn">no OCI runtime</span>
            )}
          </dd>
          <dt>Runtime</dt>
          <dd>
            {c.runtime ? (
              <code>
                {c.runtime.name} {c.runtime.version}
              </code>
            ) : (
              none
            )}
          </dd>
          <dt>Containerizers</dt>
          <dd>{list(c.containerizers)}</dd>
          <dt>Isolators</dt>
          <dd>{list(c.isolators)}</dd>
          <dt>Tools</dt>
          <dd>
            {list(
              Object.entries(c.tools)
                .map(([name, version]) => `${name} ${version}`)
                .sort(),
            )}
          </dd>
          <dt>GPUs</dt>
          <dd>
            {c.gpus.length ? (
              <ul className="plain">
                {c.gpus.map((g) => (
                  <li key={g.index}>
                    <code>{g.index}</code> {g.model}
                    {g.uuid ? <span className="muted"> ({g.uuid})</span> : null}
                  </li>
                ))}
              </ul>
            ) : (
              none
            )}
          </dd>
        </dl>
      )}
    </Panel>
  );
}
