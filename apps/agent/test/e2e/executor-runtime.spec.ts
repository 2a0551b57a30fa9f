// Executors on a real agent: the HTTP API, the examples, the default executor, checkpoints and resubscription, task groups.
// The cases in executor-runtime/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/executor-runtime`);
