/**
 * CommandInfo.uris through Mesos's scheduler API: the Jenkins Mesos plugin's task shape (a
 * command run beside agent.jar, fetched as a URI) reaches its agent with its URIs, and so does
 * the launch sent again to an agent that comes back without it.
 */
import { parseResources } from '@arbiter/allocator';
import { ADMIN_TOKEN, startTestControlPlane, type TestControlPlane } from '../../support/app';
import { ProtocolAgent } from '../../support/fake-agent';
import { MesosClient } from '../../support/mesos-client';
import { defined, until } from '../../support/until';

let t: TestControlPlane | undefined;
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) c();
  await t?.close();
  t = undefined;
});

interface Offer {
  id: { value: string };
  agent_id: { value: string };
}

const agentOn = async (cp: TestControlPlane, agentId?: string) => {
  const a = new ProtocolAgent(cp.cp.url, ADMIN_TOKEN, {
    hostname: 'jenkins-node',
    resources: parseResources('cpus:4;mem:4096').toJSON(),
    ...(agentId ? { agentId } : {}),
  });
  closers.push(() => a.close());
  await a.register();
  return a;
};

it("launches the Jenkins plugin's task with agent.jar as a URI, and sends the URIs again with a re-sent launch", async () => {
  t = await startTestControlPlane({ config: { allocationInterval: 0.1 } });
  const a = await agentOn(t);
  a.runsLaunches = false;
  const c = new MesosClient(t.cp.url, `Bearer ${ADMIN_TOKEN}`);
  closers.push(() => c.close());
  expect(await c.subscribe({ user: 'nobody', name: 'jenkins', role: 'ci' })).toBe(200);
  await until(() => c.of<{ offers: Offer[] }>('OFFERS').length > 0);
  const offer = c.of<{ offers: Offer[] }>('OFFERS')[0].offers[0];
  const jar = 'http://jenkins.example:8080/jnlpJars/agent.jar';
  const accepted = await c.call('ACCEPT', {
    accept: {
      offer_ids: [offer.id],
      operations: [
        {
          type: 'LAUNCH',
          launch: {
            task_infos: [
              {
                name: 'jenkins-agent',
                task_id: { value: 'jenkins-1' },
                agent_id: offer.agent_id,
                resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 1 } }],
                command: {
                  value: 'java -jar agent.jar -jnlpUrl http://jenkins.example:8080/computer/x/slave-agent.jnlp',
                  uris: [{ value: jar, executable: false, extract: false, cache: true }],
                },
              },
            ],
          },
        },
      ],
    },
  });
  expect(accepted.status).toBe(202);
  await until(() => a.launches.length === 1);
  const expected = [{ value: jar, executable: false, extract: false, cache: true }];
  expect(a.launches[0].task).toMatchObject({ taskId: 'jenkins-1', uris: expected });
  expect(a.launches[0].task.command).toEqual({
    shell: 'java -jar agent.jar -jnlpUrl http://jenkins.example:8080/computer/x/slave-agent.jnlp',
  });
  // The agent comes back without it (the launch never reached it): it is sent again, URIs and all.
  const agentId = defined(a.agentId);
  a.close();
  const back = await agentOn(t, agentId);
  await until(() => back.launches.length === 1);
  expect(back.launches[0].task.uris).toEqual(expected);
});
