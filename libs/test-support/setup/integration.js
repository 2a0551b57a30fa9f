// Integration tests: a real PostgreSQL and a control plane in the test's own process.
const { setUntilTimeout, timeScale } = require('../src/until');
setUntilTimeout(15_000);
jest.setTimeout(30_000 * timeScale());
// Every test asserts something: waiting for a condition or not throwing is not a test.
beforeEach(() => expect.hasAssertions());
