// What operators run and read: modules, OpenAPI, metrics, the schema and its migrations, the examples.
// The cases in operations/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/operations`);
