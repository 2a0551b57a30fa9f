/**
 * How long an example waits for the control plane to answer its subscription before it gives up
 * (a mistyped --master, a cluster that is down) with a SchedulerError UNREACHABLE, where a
 * long-lived framework would go on retrying.
 */
export const START_TIMEOUT_MS = 30_000;
