'use client';
/**
 * Access (admins): principals and their kinds, their tokens (issued with the secret shown once,
 * revoked), and the cluster's ACLs in Mesos's JSON format. A non-admin is told the page needs an
 * admin token.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type SubmitEvent, useState } from 'react';
import { ActionDialog } from '@/components/dialog';
import { columnsFor, DataTable } from '@/components/table';
import { useToast } from '@/components/toast';
import { ActionError, Badge, ErrorPanel, Field, Loading, PageHeader, Panel } from '@/components/ui';
import { When } from '@/components/when';
import { api, ApiError, call, fieldError, formError, type Schemas } from '@/lib/api';

type Principal = Schemas['PrincipalDto'];
type Token = Schemas['TokenDto'];
type Kind = Principal['kind'];

const KINDS: Kind[] = ['VIEWER', 'OPERATOR', 'FRAMEWORK', 'AGENT', 'ADMIN'];
const KIND_HELP: Record<Kind, string> = {
  ADMIN: 'everything, principals and ACLs included',
  OPERATOR: 'reads everything, changes the cluster within the ACLs',
  VIEWER: 'reads everything, changes nothing',
  FRAMEWORK: 'subscribes schedulers on /frameworks',
  AGENT: 'registers agents on /agents',
};
const TTLS: Array<[string, number | undefined]> = [
  ['never expires', undefined],
  ['1 day', 86_400],
  ['30 days', 30 * 86_400],
  ['90 days', 90 * 86_400],
  ['1 year', 365 * 86_400],
];
const ACCESS = ['access'] as const;

const principalsQuery = { queryKey: [...ACCESS, 'principals'], queryFn: () => call(api.GET('/api/v1/principals')) };

function NewPrincipal() {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('VIEWER');
  const [description, setDescription] = useState('');
  const queryClient = useQueryClient();
  const toast = useToast();
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/principals', {
          body: { name: name.trim(), kind, ...(description.trim() ? { description: description.trim() } : {}) },
        }),
      ),
    onSuccess: async (p) => {
      await queryClient.invalidateQueries({ queryKey: ACCESS });
      toast(`created ${p.kind.toLowerCase()} principal ${p.name}`);
      setName('');
      setDescription('');
    },
  });
  const errors = { name: fieldError(create.error, 'name', ['PRINCIPAL_EXISTS']), kind: fieldError(create.error, 'kind') };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Create a principal" style={{ display: 'flex', flexDirection: 'column', gap: 10 }}>
      <div className="form-row">
        <Field label="Name" error={errors.name}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} placeholder="team-a" required />}
        </Field>
        <Field label="Kind" error={errors.kind} hint={KIND_HELP[kind]}>
          {(p) => (
            <select {...p} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {k.toLowerCase()}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Description">
          {(p) => <input {...p} value={description} onChange={(e) => setDescription(e.target.value)} placeholder="team A's schedulers" />}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create principal'}
        </button>
      </div>
      <ActionError error={formError(create.error, Object.values(errors))} />
    </form>
  );
}

function DisableButton({ p }: { p: Principal }) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  const toast = useToast();
  if (p.disabledAt) return <Badge tone="bad">disabled</Badge>;
  return (
    <>
      <button type="button" className="small danger" onClick={() => setOpen(true)}>
        Disable
      </button>
      <ActionDialog
        open={open}
        onClose={() => setOpen(false)}
        title={`Disable ${p.name}?`}
        confirmLabel="Disable"
        danger
        onConfirm={async () => {
          await call(api.POST('/api/v1/principals/{name}/disable', { params: { path: { name: p.name } } }));
          await queryClient.invalidateQueries({ queryKey: ACCESS });
          toast(`disabled ${p.name}`);
        }}
      >
        <p>
          Every token of <strong>{p.name}</strong> stops working at once, and its open connections (agents, schedulers) are closed.
        </p>
      </ActionDialog>
    </>
  );
}

function RevokeButton({ t }: { t: Token }) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  const toast = useToast();
  if (t.revokedAt) return <Badge tone="bad">revoked</Badge>;
  return (
    <>
      <button type="button" className="small danger" onClick={() => setOpen(true)}>
        Revoke
      </button>
      <ActionDialog
        open={open}
        onClose={() => setOpen(false)}
        title="Revoke this token?"
        confirmLabel="Revoke"
        danger
        onConfirm={async () => {
          await call(api.DELETE('/api/v1/tokens/{id}', { params: { path: { id: t.id } } }));
          await queryClient.invalidateQueries({ queryKey: ACCESS });
          toast(`revoked token ${t.name}`);
        }}
      >
        <p>
          Token <strong>{t.name}</strong> of {t.principal} is refused from now on; connections using it are closed.
        </p>
      </ActionDialog>
    </>
  );
}

function Tokens({ principal }: { principal: Principal }) {
  const [name, setName] = useState('');
  const [ttl, setTtl] = useState(0);
  const [secret, setSecret] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const tokens = useQuery({
    queryKey: [...ACCESS, 'tokens', principal.name],
    queryFn: () => call(api.GET('/api/v1/principals/{name}/tokens', { params: { path: { name: principal.name } } })),
  });
  const issue = useMutation({
    mutationFn: () => {
      const ttlSeconds = TTLS[ttl][1];
      return call(
        api.POST('/api/v1/principals/{name}/tokens', {
          params: { path: { name: principal.name } },
          body: { ...(name.trim() ? { name: name.trim() } : {}), ...(ttlSeconds ? { ttlSeconds } : {}) },
        }),
      );
    },
    onSuccess: async (t) => {
      setSecret(t.token);
      setName('');
      await queryClient.invalidateQueries({ queryKey: ACCESS });
    },
  });
  const c = columnsFor<Token>();
  const columns = c.columns([
    c.accessor('name', { header: 'Name' }),
    c.accessor('createdAt', { header: 'Created', cell: (i) => <When at={i.getValue()} as="ago" /> }),
    c.accessor('expiresAt', { header: 'Expires', cell: (i) => (i.getValue() ? <When at={i.getValue()} /> : 'never') }),
    c.accessor('lastUsedAt', { header: 'Last used', cell: (i) => (i.getValue() ? <When at={i.getValue()} as="ago" /> : '—') }),
    c.display({ id: 'revoke', header: '', cell: (i) => <RevokeButton t={i.row.original} /> }),
  ]);
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    issue.mutate();
  };
  return (
    <Panel title={`Tokens of ${principal.name}`}>
      {secret ? (
        <div className="token-secret" role="status" aria-label="New token">
          <p>
            <strong>Copy this token now: it is shown only once</strong> (the control plane keeps only its hash).
          </p>
          <input
            readOnly
            value={secret}
            aria-label="Token secret"
            onFocus={(e) => e.currentTarget.select()}
            style={{ width: '100%', fontFamily: 'monospace' }}
          />
          <button type="button" className="small" onClick={() => void navigator.clipboard.writeText(secret)}>
            Copy
          </button>{' '}
          <button type="button" className="small" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      ) : null}
      {principal.disabledAt ? null : (
        <form onSubmit={submit} aria-label="Issue a token" className="form-row">
          <Field label="Token name">
            {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} placeholder="ci pipeline" />}
          </Field>
          <Field label="Expiry">
            {(p) => (
              <select {...p} value={ttl} onChange={(e) => setTtl(Number(e.target.value))}>
                {TTLS.map(([label], i) => (
                  <option key={label} value={i}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" className="primary" disabled={issue.isPending}>
            Issue token
          </button>
        </form>
      )}
      <ActionError error={issue.error} />
      {tokens.error ? <ErrorPanel error={tokens.error} /> : null}
      {tokens.data ? <DataTable label="Tokens" columns={columns} data={tokens.data} getRowId={(t) => t.id} empty="No token." /> : null}
    </Panel>
  );
}

function Acls() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const current = useQuery({ queryKey: [...ACCESS, 'acls'], queryFn: () => call(api.GET('/api/v1/acls')) });
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? (current.data ? JSON.stringify(current.data.document, null, 2) : '');
  const [parseError, setParseError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () => call(api.PUT('/api/v1/acls', { body: JSON.parse(shown) as Record<string, never> })),
    onSuccess: async () => {
      setText(null);
      await queryClient.invalidateQueries({ queryKey: [...ACCESS, 'acls'] });
      toast('ACLs saved');
    },
  });
  const problems = save.error instanceof ApiError ? ((save.error.details?.errors as string[] | undefined) ?? []) : [];
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    try {
      JSON.parse(shown);
      setParseError(null);
      save.mutate();
    } catch (err) {
      setParseError(`not JSON: ${(err as Error).message}`);
    }
  };
  return (
    <Panel title="ACLs">
      <p className="muted">
        Mesos&apos;s format: <code>permissive</code> and, per action, a list of <code>{'{principals, <object>}'}</code> entries with{' '}
        <code>values</code> or <code>type: ANY | NONE</code>; the first entry that matches decides. Actions: register_frameworks (roles),
        run_tasks (users), teardown_frameworks, reserve_resources, unreserve_resources, update_quotas, update_weights, maintenance and agent
        actions. See docs/security.md.
        {current.data?.updatedBy ? (
          <>
            {' '}
            Last changed by {current.data.updatedBy} <When at={current.data.updatedAt ?? undefined} as="ago" />.
          </>
        ) : null}
      </p>
      {current.error ? <ErrorPanel error={current.error} /> : null}
      <form onSubmit={submit} aria-label="ACLs">
        <textarea
          aria-label="ACL document"
          value={shown}
          onChange={(e) => setText(e.target.value)}
          rows={14}
          spellCheck={false}
          style={{ width: '100%', fontFamily: 'monospace', fontSize: 13 }}
        />
        {parseError ? <p className="error">{parseError}</p> : null}
        {problems.length ? (
          <ul className="error" aria-label="ACL problems">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        ) : (
          <ActionError error={save.error} />
        )}
        <button type="submit" className="primary" disabled={save.isPending || text === null}>
          Save ACLs
        </button>
      </form>
    </Panel>
  );
}

export function AccessView() {
  const principals = useQuery(principalsQuery);
  const [selected, setSelected] = useState<string | null>(null);
  const header = (
    <PageHeader
      title="Access"
      description="Who may use the cluster: principals, their API tokens, and the ACLs that narrow what they may do."
    />
  );
  if (principals.error instanceof ApiError && principals.error.status === 403)
    return (
      <>
        {header}
        <Panel title="Admins only">
          <p>This page needs an admin token: {principals.error.message}.</p>
        </Panel>
      </>
    );
  if (principals.error) return <ErrorPanel error={principals.error} onRetry={() => void principals.refetch()} />;
  if (!principals.data) return <Loading />;
  const c = columnsFor<Principal>();
  const columns = c.columns([
    c.accessor('name', {
      header: 'Name',
      cell: (i) => (
        <button type="button" className="link" onClick={() => setSelected(i.getValue())} aria-pressed={selected === i.getValue()}>
          {i.getValue()}
        </button>
      ),
    }),
    c.accessor('kind', { header: 'Kind', cell: (i) => i.getValue().toLowerCase() }),
    c.accessor('description', { header: 'Description', cell: (i) => i.getValue() || '—' }),
    c.accessor('liveTokens', { header: 'Live tokens' }),
    c.accessor('createdAt', { header: 'Created', cell: (i) => <When at={i.getValue()} as="ago" /> }),
    c.display({ id: 'disable', header: '', cell: (i) => <DisableButton p={i.row.original} /> }),
  ]);
  const chosen = principals.data.find((p) => p.name === selected);
  return (
    <>
      {header}
      <Panel title="New principal">
        <NewPrincipal />
      </Panel>
      <Panel title="Principals">
        <DataTable label="Principals" columns={columns} data={principals.data} getRowId={(p) => p.name} empty="No principal." />
      </Panel>
      {chosen ? <Tokens principal={chosen} /> : null}
      <Acls />
    </>
  );
}
