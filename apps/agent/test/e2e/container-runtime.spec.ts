// Containers on a real agent: images and their provisioning, nesting, checks inside, isolation, persistent volumes.
// The cases in container-runtime/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/container-runtime`);
