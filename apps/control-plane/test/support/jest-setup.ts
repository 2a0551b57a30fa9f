// Integration tests start real servers and wait on real processes.
jest.setTimeout(30_000);
