// Who may do what: authentication, authorization (ACLs), what each principal sees, TLS, the audit log.
// The cases in access/ run in this one Jest file (each in a describe named for its file): see casesIn.
import { casesIn } from '@arbiter/test-support';

casesIn(`${__dirname}/access`);
