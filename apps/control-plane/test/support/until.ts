/** Waiting in real time, shared by every package's tests (see @arbiter/test-support). */
export { defined, until } from '@arbiter/test-support';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
