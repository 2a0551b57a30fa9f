// Highly available control planes as processes: failover under load, a leader paused and cut off.
// The cases in high-availability/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/high-availability`);
