// End-to-end tests: real processes (agents, the CLI, control planes, Chromium) start and stop.
const { setUntilTimeout, timeScale } = require('../src/until');
setUntilTimeout(30_000);
jest.setTimeout(60_000 * timeScale());
// Every test asserts something: waiting for a condition or not throwing is not a test.
beforeEach(() => expect.hasAssertions());
