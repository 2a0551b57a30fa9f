/**
 * The highly available cluster's topology, described once: PostgreSQL, N control-plane
 * replicas, the dashboard and M agents, with each service's settings. `arbiter cluster-ha`
 * runs it as local processes; `arbiter compose` renders it as docker/compose.yaml (a test
 * checks the committed file is what this renders), so the two cannot drift.
 */
import { stringify } from 'yaml';

type ServiceKind = 'postgres' | 'control-plane' | 'dashboard' | 'agent';

export interface Service {
  name: string;
  kind: ServiceKind;
  /** The port it serves on, inside its container and (with an offset) on the host. */
  port: number;
  /** Port on the host (compose publishes it; local processes listen on it). */
  hostPort: number;
  /** Settings (environment variables) other than addresses and secrets, which each renderer fills. */
  env: Record<string, string>;
  dependsOn: string[];
}

interface HaOptions {
  replicas: number;
  agents: number;
  /** Host port of the first replica; the others follow (default 8081). */
  basePort?: number;
  /** Host port of the dashboard (default 3000). */
  dashboardPort?: number;
}

const CONTROL_PLANE_PORT = 8080;
const DASHBOARD_PORT = 3000;

export function haTopology(options: HaOptions): Service[] {
  if (!Number.isInteger(options.replicas) || options.replicas < 1 || options.replicas > 9)
    throw new Error(`--replicas must be a whole number from 1 to 9 (got ${options.replicas})`);
  if (!Number.isInteger(options.agents) || options.agents < 0 || options.agents > 20)
    throw new Error(`--agents must be a whole number from 0 to 20 (got ${options.agents})`);
  const basePort = options.basePort ?? 8081;
  const replicas = Array.from({ length: options.replicas }, (_, i) => `control-plane-${i + 1}`);
  return [
    { name: 'postgres', kind: 'postgres', port: 5432, hostPort: 5432, env: {}, dependsOn: [] },
    ...replicas.map((name, i): Service => ({
      name,
      kind: 'control-plane',
      port: CONTROL_PLANE_PORT,
      hostPort: basePort + i,
      // A standby takes over within a few seconds of the leader's loss.
      env: { ARBITER_LEADER_LEASE: '10', LOG_LEVEL: 'info' },
      dependsOn: ['postgres'],
    })),
    {
      name: 'dashboard',
      kind: 'dashboard',
      port: DASHBOARD_PORT,
      hostPort: options.dashboardPort ?? DASHBOARD_PORT,
      env: {},
      dependsOn: replicas,
    },
    ...Array.from({ length: options.agents }, (_, i): Service => ({
      name: `agent-${i + 1}`,
      kind: 'agent',
      port: 0,
      hostPort: 0,
      env: { ARBITER_AGENT_RESOURCES: 'cpus:2;mem:2048;disk:10000;ports:[31000-31999]' },
      dependsOn: replicas,
    })),
  ];
}

/** The replicas' URLs as clients list them, given how a service is addressed. */
export function masterList(services: Service[], urlOf: (s: Service) => string): string {
  return services
    .filter((s) => s.kind === 'control-plane')
    .map(urlOf)
    .join(',');
}

const IMAGES: Record<Exclude<ServiceKind, 'postgres'>, string> = {
  'control-plane': 'control-plane',
  dashboard: 'dashboard',
  agent: 'agent',
};

/** docker/compose.yaml for the topology: every secret comes from the environment. */
export function composeYaml(services: Service[]): string {
  const inCompose = (s: Service) => `http://${s.name}:${s.port}`;
  const masters = masterList(services, inCompose);
  const out: Record<string, unknown> = {};
  for (const s of services) {
    const depends = Object.fromEntries(s.dependsOn.map((d) => [d, { condition: 'service_healthy' }]));
    if (s.kind === 'postgres') {
      out[s.name] = {
        image: 'postgres:16',
        restart: 'unless-stopped',
        environment: {
          POSTGRES_USER: 'arbiter',
          POSTGRES_DB: 'arbiter',
          POSTGRES_PASSWORD: '${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}',
        },
        volumes: ['postgres-data:/var/lib/postgresql/data'],
        healthcheck: { test: ['CMD-SHELL', 'pg_isready -U arbiter -d arbiter'], interval: '5s', timeout: '3s', retries: 10 },
      };
      continue;
    }
    const service: Record<string, unknown> = {
      build: { context: '..', dockerfile: `docker/${IMAGES[s.kind]}.Dockerfile` },
      image: `arbiter/${IMAGES[s.kind]}:latest`,
      restart: 'unless-stopped',
      depends_on: depends,
    };
    if (s.kind === 'control-plane')
      Object.assign(service, {
        environment: {
          ...s.env,
          PORT: String(s.port),
          DATABASE_URL: 'postgres://arbiter:${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}@postgres:5432/arbiter',
          ARBITER_ADMIN_TOKEN: '${ARBITER_ADMIN_TOKEN:?set ARBITER_ADMIN_TOKEN (e.g. openssl rand -hex 32)}',
          ARBITER_ADVERTISE_URL: inCompose(s),
        },
        ports: [`${s.hostPort}:${s.port}`],
      });
    else if (s.kind === 'dashboard')
      Object.assign(service, {
        environment: { ...s.env, ARBITER_API_URL: masters, PORT: String(s.port) },
        ports: [`${s.hostPort}:${s.port}`],
      });
    else
      Object.assign(service, {
        hostname: s.name,
        environment: {
          ...s.env,
          ARBITER_MASTER: masters,
          ARBITER_AGENT_TOKEN: '${ARBITER_AGENT_TOKEN:?set ARBITER_AGENT_TOKEN: an agent token, see docs/operations.md}',
        },
        volumes: [`${s.name}-work:/var/lib/arbiter`],
      });
    out[s.name] = service;
  }
  const volumes: Record<string, null> = { 'postgres-data': null };
  for (const s of services) if (s.kind === 'agent') volumes[`${s.name}-work`] = null;
  const header =
    '# Generated by `npm run docker:compose` from apps/cli/src/topology.ts (the topology `npm run cluster:ha` runs): do not edit.\n' +
    '# Secrets come from the environment: POSTGRES_PASSWORD, ARBITER_ADMIN_TOKEN, ARBITER_AGENT_TOKEN (docs/operations.md).\n';
  return header + stringify({ name: 'arbiter', services: out, volumes }, { lineWidth: 0 });
}
