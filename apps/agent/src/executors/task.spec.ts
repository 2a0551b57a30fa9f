import { endOf, limitsOf } from './task';

describe('a task', () => {
  it('takes its limits from its resources, memLimitBytes first', () => {
    const spec = {
      taskId: 't',
      name: 't',
      command: { shell: 'true' },
      resources: [
        { name: 'cpus', value: 0.5 },
        { name: 'mem', value: 64 },
        { name: 'disk', value: 1.5 },
      ],
    };
    expect(limitsOf(spec, undefined, 1024)).toEqual({ memBytes: 64 * 1024 * 1024, cpus: 0.5, diskBytes: 1.5 * 1024 * 1024, pids: 1024 });
    expect(limitsOf(spec, 1000, 10).memBytes).toBe(1000);
    expect(limitsOf({ ...spec, resources: [] }, undefined, 10)).toEqual({ pids: 10 });
    const ports = [
      { name: 'ports', ranges: [[31000, 31001]] as Array<[number, number]> },
      { name: 'ports', ranges: [[31005, 31005]] as Array<[number, number]> },
      { name: 'gpus', value: 2 },
    ];
    expect(limitsOf({ ...spec, resources: ports }, undefined, 10)).toEqual({
      pids: 10,
      ports: [
        [31000, 31001],
        [31005, 31005],
      ],
      gpus: 2,
    });
  });

  it('says how its command ended', () => {
    expect([endOf(0, null), endOf(3, null), endOf(137, null), endOf(null, 'SIGTERM')]).toEqual([
      { state: 'FINISHED', message: 'exited with status 0' },
      { state: 'FAILED', message: 'the command exited with status 3' },
      { state: 'FAILED', message: 'the command was killed by signal 9' },
      { state: 'FAILED', message: 'the command was killed by SIGTERM' },
    ]);
  });
});
