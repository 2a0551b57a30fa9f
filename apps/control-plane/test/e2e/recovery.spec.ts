// What survives a fault: killed processes, restarts, executors and volumes across a control plane's failover.
// The cases in recovery/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/recovery`);
