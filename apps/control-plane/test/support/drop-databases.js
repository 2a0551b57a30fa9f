#!/usr/bin/env node
// Drops a finished test run's databases: `drop-databases.js SERVER_URL PREFIX TEMPLATE` drops
// every database whose name starts with PREFIX, several at once (each DROP DATABASE waits for a
// checkpoint, and drops waiting together share one), then the template. Started detached by the
// global teardown (global-teardown.ts), so that no run waits for it.
'use strict';
const { Client } = require('pg');

async function query(url, sql, params = []) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function main([serverUrl, prefix, template]) {
  const names = (await query(serverUrl, 'SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix])).map((r) => r.datname);
  const drop = async () => {
    for (let name = names.pop(); name !== undefined; name = names.pop())
      await query(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  };
  await Promise.all(Array.from({ length: 8 }, drop));
  await query(serverUrl, `DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).catch(() => undefined);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`drop-databases: ${err.message}`);
  process.exitCode = 1;
});
