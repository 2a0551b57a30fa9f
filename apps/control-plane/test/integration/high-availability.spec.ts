// Leadership and its faults, the database going away, failed writes, skewed clocks.
// The cases in high-availability/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/high-availability`);
