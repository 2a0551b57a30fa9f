// The master's loop: offers, answers, updates, failover timers; coalesced reads, the cluster summary, lists.
// The cases in control-loop/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/control-loop`);
