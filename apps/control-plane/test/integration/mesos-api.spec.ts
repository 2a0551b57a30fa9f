// Mesos's scheduler and operator APIs: calls, operations and their feedback, fetching, executors.
// The cases in mesos-api/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/mesos-api`);
