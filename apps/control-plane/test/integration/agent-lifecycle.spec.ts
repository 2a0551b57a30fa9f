// Agents: registration, reconnection and health, draining, maintenance and its shutdowns, partition awareness, the whitelist.
// The cases in agent-lifecycle/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/agent-lifecycle`);
