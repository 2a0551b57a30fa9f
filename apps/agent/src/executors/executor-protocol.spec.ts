import { durationMs, mesosDuration } from './executor-protocol';

describe('durations', () => {
  it("reads an operator's durations: seconds by default, ms, s, m, h, d, w and Mesos's secs, mins, hrs, days and weeks", () => {
    expect(['60', '500ms', '30s', '2secs', '1m', '15mins', '1.5s'].map(durationMs)).toEqual([
      60_000, 500, 30_000, 2_000, 60_000, 900_000, 1_500,
    ]);
    expect(['10h', '2hrs', '1d', '3days', '1w', '1weeks'].map(durationMs)).toEqual([
      36_000_000, 7_200_000, 86_400_000, 259_200_000, 604_800_000, 604_800_000,
    ]);
    expect(['', 'soon', '-1s', '10y', undefined].map(durationMs)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it("writes them as Mesos does in an executor's environment", () => {
    expect([900_000, 2_000, 250].map(mesosDuration)).toEqual(['15mins', '2secs', '250ms']);
  });
});
