/**
 * The admin token every test control plane is started with. Its own module: a test that starts
 * control planes as child processes needs the token, not the in-process control plane that
 * `./app` loads (the whole Nest application, over a second of CPU time per test file).
 */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
