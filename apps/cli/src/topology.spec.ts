import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { composeYaml, haTopology } from './topology';

const COMPOSE_FILE = path.resolve(__dirname, '../../../docker/compose.yaml');

describe('the HA topology', () => {
  const services = haTopology({ replicas: 3, agents: 2 });
  const compose = parse(fs.readFileSync(COMPOSE_FILE, 'utf8')) as {
    services: Record<string, { environment?: Record<string, string>; build?: { dockerfile: string }; depends_on?: object }>;
  };

  it('docker/compose.yaml is what the topology renders (`npm run docker:compose` regenerates it)', () => {
    expect(fs.readFileSync(COMPOSE_FILE, 'utf8')).toBe(composeYaml(services));
  });

  it('names every service of the topology, and only those', () => {
    expect(Object.keys(compose.services).sort()).toEqual(services.map((s) => s.name).sort());
    expect(services.filter((s) => s.kind === 'control-plane')).toHaveLength(3);
    expect(services.filter((s) => s.kind === 'agent')).toHaveLength(2);
  });

  it('builds each service from its own Dockerfile, which exists, and takes every secret from the environment', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.build) expect(fs.existsSync(path.resolve(COMPOSE_FILE, '..', '..', s.build.dockerfile))).toBe(true);
      for (const [key, value] of Object.entries(s.environment ?? {}))
        if (/PASSWORD|TOKEN/.test(key) && !key.endsWith('_FILE'))
          expect([name, key, value]).toEqual([name, key, expect.stringMatching(/^\$\{[A-Z_]+:\?/)]);
    }
    // Every client lists every replica.
    const masters = compose.services['agent-1'].environment?.ARBITER_MASTER;
    expect(masters).toBe('http://control-plane-1:8080,http://control-plane-2:8080,http://control-plane-3:8080');
    expect(compose.services.dashboard.environment?.ARBITER_API_URL).toBe(masters);
  });

  it('refuses shapes it cannot run', () => {
    expect(() => haTopology({ replicas: 0, agents: 1 })).toThrow(/--replicas/);
    expect(() => haTopology({ replicas: 2, agents: -1 })).toThrow(/--agents/);
  });
});
