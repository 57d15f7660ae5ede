'use strict';
// Tiny CQL client for the infra scripts (there is no cqlsh here: it ships only
// in Cassandra's tarball and needs Python). Uses the project's own driver.
//
//   node infra/tools/cql.js ping            prints the server's release_version
//   node infra/tools/cql.js wait [seconds]  retries ping until it answers
//   node infra/tools/cql.js exec FILE       runs each ;-terminated statement of FILE
//
// Connection: CASSANDRA_HOST, CASSANDRA_NATIVE_PORT, CASSANDRA_DATACENTER. The port has no default: each checkout's
// Cassandra has its own (infra/lib/common.sh), and a guessed one could be another checkout's server.

const fs = require('node:fs');
const cassandra = require('cassandra-driver');

const host = process.env.CASSANDRA_HOST || '127.0.0.1';
if (!process.env.CASSANDRA_NATIVE_PORT) {
  console.error('cql.js: CASSANDRA_NATIVE_PORT is not set (infra/cassandra.sh sets it; see infra/README.md)');
  process.exit(2);
}
const port = Number(process.env.CASSANDRA_NATIVE_PORT);
const localDataCenter = process.env.CASSANDRA_DATACENTER || 'datacenter1';

function connect() {
  return new cassandra.Client({
    contactPoints: [`${host}:${port}`],
    localDataCenter,
    socketOptions: { connectTimeout: 3000, readTimeout: 60000 },
    // Schema statements wait for agreement; one node agrees at once.
    protocolOptions: { maxSchemaAgreementWaitSeconds: 30 },
  });
}

async function withClient(work) {
  const client = connect();
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.shutdown();
  }
}

async function ping() {
  return withClient(async (client) => {
    const rs = await client.execute('SELECT release_version FROM system.local');
    return rs.first().release_version;
  });
}

async function waitForServer(seconds) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    try {
      return await ping();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

// Splits on semicolons that end a line; the schema files keep one statement
// per block and no semicolons inside string literals.
function statementsOf(text) {
  return text
    .split('\n')
    .filter((line) => !/^\s*(--|\/\/)/.test(line))
    .join('\n')
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}

async function execFile(file) {
  const statements = statementsOf(fs.readFileSync(file, 'utf8'));
  await withClient(async (client) => {
    for (const statement of statements) await client.execute(statement);
  });
  return statements.length;
}

async function main([command, argument]) {
  switch (command) {
    case 'ping':
      console.log(await ping());
      return;
    case 'wait':
      console.log(await waitForServer(Number(argument || 120)));
      return;
    case 'exec':
      console.log(`${await execFile(argument)} statements applied`);
      return;
    default:
      throw new Error('usage: cql.js ping | wait [seconds] | exec FILE');
  }
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`cql.js: ${error.message}`);
  process.exit(1);
});
