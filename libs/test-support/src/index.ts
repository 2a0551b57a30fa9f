export { defined, setUntilTimeout, timeScale, until } from './until';
export { type AdvancingClock, never } from './never';
export { ManualClock } from './manual-clock';
export { principal } from './principal';
export { type ExecutorCall, type ExecutorEndpoint, recordIO, startExecutorEndpoint } from './executor-endpoint';
export { casesIn } from './cases';
