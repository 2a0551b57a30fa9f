// The allocator's settings, roles (weights, quotas), reservations, revocable resources, what-if.
// The cases in allocation/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/allocation`);
