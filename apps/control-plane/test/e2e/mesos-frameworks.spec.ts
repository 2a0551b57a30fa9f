// Mesos's own clients as processes: a third-party framework, mesos-go's operator client, volumes through the Mesos API.
// The cases in mesos-frameworks/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/mesos-frameworks`);
