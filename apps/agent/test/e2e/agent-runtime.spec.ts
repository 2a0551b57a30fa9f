// A real agent's own work: its process, checks, the fetcher, sandbox files, GC, ports, GPUs and modules.
// The cases in agent-runtime/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/agent-runtime`);
