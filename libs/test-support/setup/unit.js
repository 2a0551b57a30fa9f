// Unit tests: no database, no process; nothing waits long.
require('../src/until').setUntilTimeout(5_000);
// Every test asserts something: waiting for a condition or not throwing is not a test.
beforeEach(() => expect.hasAssertions());
