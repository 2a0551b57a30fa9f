// Unit tests: no database, no process; nothing waits long.
const { setUntilTimeout, timeScale } = require('../src/until');
setUntilTimeout(5_000);
// A bound for a loaded machine (the property tests run hundreds of cases), not a budget.
jest.setTimeout(15_000 * timeScale());
// Every test asserts something: waiting for a condition or not throwing is not a test.
beforeEach(() => expect.hasAssertions());
