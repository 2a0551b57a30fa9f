// A cluster of processes end to end: the SDK's frameworks, agents updated and configured, the examples, oversubscription.
// The cases in cluster/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/cluster`);
