import { detectRuntime } from './runc';

describe('the OCI runtime at start', () => {
  it('turns images off with a reason when the agent is not root, without running anything', () => {
    expect(detectRuntime(false)).toEqual({ problem: 'the agent does not run as root, which runc needs' });
  });
});
