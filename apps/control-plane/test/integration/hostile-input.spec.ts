// Hostile and careless clients: fuzzed requests and messages, load past the limits, readers that stop reading.
// The cases in hostile-input/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/hostile-input`);
