// A task's life: executors, containers, checks, TaskInfo fields, sandboxes, volumes.
// The cases in task-lifecycle/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/task-lifecycle`);
