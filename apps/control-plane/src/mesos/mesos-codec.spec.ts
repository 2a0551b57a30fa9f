import { MesosCall } from '@arbiter/contracts';
import { acceptOf } from './mesos-codec';
import { mesosTypes, PROTOBUF_ENCODING } from './mesos-protobuf';

/** An ACCEPT launching the Jenkins Mesos plugin's task shape: `java -jar agent.jar ...` with agent.jar as a URI. */
function jenkinsAccept(uris: Array<Record<string, unknown>>, op: 'LAUNCH' | 'LAUNCH_GROUP' = 'LAUNCH') {
  const task = {
    name: 'jenkins-agent',
    task_id: { value: 'jenkins-1' },
    agent_id: { value: 'a1' },
    resources: [{ name: 'cpus', type: 'SCALAR', scalar: { value: 0.5 } }],
    command: { value: 'java -jar agent.jar -jnlpUrl http://jenkins/computer/x/slave-agent.jnlp', uris },
  };
  const operation =
    op === 'LAUNCH'
      ? { type: 'LAUNCH', launch: { task_infos: [task] } }
      : {
          type: 'LAUNCH_GROUP',
          launch_group: {
            executor: { executor_id: { value: 'e' }, type: 'DEFAULT', resources: [] },
            task_group: { tasks: [task] },
          },
        };
  return { framework_id: { value: 'f1' }, type: 'ACCEPT', accept: { offer_ids: [{ value: 'o1' }], operations: [operation] } };
}

const AGENT_JAR = { value: 'http://jenkins:8080/jnlpJars/agent.jar', executable: false, cache: true };

describe('CommandInfo.uris', () => {
  it("maps a JSON call's uris to the task's, extract true unless said (Mesos's default), output_file as outputFile", () => {
    const call = MesosCall.parse(jenkinsAccept([AGENT_JAR, { value: 'file:///opt/tools.tgz', extract: false, output_file: 'lib/t.tgz' }]));
    const [op] = acceptOf(call).accept.operations;
    expect(op).toMatchObject({ type: 'LAUNCH' });
    const spec = op.type === 'LAUNCH' ? op.tasks[0] : undefined;
    expect(spec?.command).toEqual({ shell: 'java -jar agent.jar -jnlpUrl http://jenkins/computer/x/slave-agent.jnlp' });
    expect(spec?.uris).toEqual([
      { value: AGENT_JAR.value, extract: true, executable: false, cache: true },
      { value: 'file:///opt/tools.tgz', extract: false, outputFile: 'lib/t.tgz' },
    ]);
  });

  it('reads the same from the protobuf encoding', () => {
    const { call } = mesosTypes();
    const json = jenkinsAccept([AGENT_JAR, { value: 'http://h/app.zip', output_file: 'app.zip', executable: true }]);
    const body = Buffer.from(call.encode(call.fromObject(json)).finish());
    const decoded = MesosCall.parse(PROTOBUF_ENCODING.decodeCall(body));
    const [op] = acceptOf(decoded).accept.operations;
    expect(op.type === 'LAUNCH' ? op.tasks[0].uris : undefined).toEqual([
      { value: AGENT_JAR.value, extract: true, executable: false, cache: true },
      { value: 'http://h/app.zip', extract: true, executable: true, outputFile: 'app.zip' },
    ]);
  });

  it("refuses an unknown URI field, and URIs on a task of a group (its executor's are fetched)", () => {
    expect(() => MesosCall.parse(jenkinsAccept([{ value: 'http://h/a', mode: 'x' }]))).toThrow();
    expect(() => acceptOf(MesosCall.parse(jenkinsAccept([AGENT_JAR], 'LAUNCH_GROUP')))).toThrow(/task 0: command.uris is not supported/);
  });

  it("passes an executor's uris on to its spec", () => {
    const json = jenkinsAccept([], 'LAUNCH');
    const task = json.accept.operations[0] as { launch: { task_infos: Array<Record<string, unknown>> } };
    const info = task.launch.task_infos[0];
    delete info.command;
    info.executor = {
      executor_id: { value: 'e' },
      command: { value: './executor', uris: [{ value: 'http://h/executor' }] },
      resources: [],
    };
    const [op] = acceptOf(MesosCall.parse(json)).accept.operations;
    expect(op.type === 'LAUNCH' ? op.tasks[0].executor?.uris : undefined).toEqual([{ value: 'http://h/executor', extract: true }]);
  });
});
