import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { CassandraConnection } from '../../../src/adapters/cassandra/cassandra-client';
import { createCassandraNodeRegistry } from '../../../src/adapters/cassandra/cassandra-node-registry';
import { NodeIdInUseError, registerNode } from '../../../src/cluster/node-registration';
import { NodeRegistry } from '../../../src/cluster/port';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, connectTestKeyspace, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { startMainProcess } from '../../helpers/main-process';
import { sleep } from '../../helpers/mqtt';
import { Stack, startStack } from '../../helpers/stack';

const logger = pino({ level: 'silent' });

describe('one running node per NODE_ID (STORE=cassandra, real Cassandra)', function () {
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  let keyspace: string;
  let conn: CassandraConnection;
  const stacks: Stack[] = [];
  /** Data dirs of starts that fail, which no stack cleans up. */
  const dirs: string[] = [];
  const aDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpie-dup-'));
    dirs.push(dir);
    return dir;
  };
  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    conn = await connectTestKeyspace(settings, keyspace);
  });
  after(async () => {
    await Promise.all(stacks.map((s) => s.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await conn?.close();
    if (keyspace) await dropKeyspace(settings, keyspace);
  });
  const nodeEnv = (nodeId: string) => ({ ...cassandraStoreEnv(settings, keyspace), NODE_ID: nodeId });
  const aNodeId = () => `node-${randomUUID().slice(0, 8)}`;

  it('refuses to start a second node with the NODE_ID of a running one, saying which node holds it', async () => {
    const nodeId = aNodeId();
    stacks.push(await startStack({ env: nodeEnv(nodeId) }));

    const err = await startStack({ env: nodeEnv(nodeId), dataDir: aDataDir() }).then(
      () => expect.fail('the second node started'),
      (e: unknown) => e,
    );

    expect(err).to.be.instanceOf(NodeIdInUseError);
    expect((err as Error).message).to.match(new RegExp(`^NODE_ID ${nodeId} is in use by a running node \\(host .+, pid ${process.pid}, started .+, last heartbeat \\d+ s ago\\); give each node its own NODE_ID`));
    expect((err as Error).message).to.not.include('\n');
  });

  it('lets a node start again at once with the NODE_ID of one that stopped', async () => {
    const nodeId = aNodeId();
    const first = await startStack({ env: nodeEnv(nodeId) });
    await first.stop();

    const again = await startStack({ env: nodeEnv(nodeId) });
    stacks.push(again);

    expect((await again.http('GET', '/readyz')).status).to.equal(200);
  });

  it('prints the refusal as one line and exits 1 when started as a process', async () => {
    const nodeId = aNodeId();
    stacks.push(await startStack({ env: nodeEnv(nodeId) }));

    const run = startMainProcess({ ...nodeEnv(nodeId), PORT: '0', MQTT_PORT: '0', COAP_PORT: '0', DATA_DIR: aDataDir(), ADMIN_TOKEN: 'a-long-enough-admin-token-of-40-chars-xy' });

    expect(await run.exited).to.equal(1);
    expect(run.output().trim()).to.match(new RegExp(`^openpie: NODE_ID ${nodeId} is in use by a running node [^\\n]+$`));
  });

  it('takes a crashed node\'s NODE_ID over one TTL after its last heartbeat; the silent one then fails /readyz', async () => {
    const real = createCassandraNodeRegistry(conn);
    let silent = false;
    // Fault injection: the first node's renewals fail, as if it were cut off from Cassandra.
    const cutOff: NodeRegistry = { ...real, renew: (r, ttl) => (silent ? Promise.reject(new Error('cut off')) : real.renew(r, ttl)) };
    const nodeId = aNodeId();
    // Short, but with room for a busy machine: a renewal more than 2 s late would let the first node back in.
    const timings = { heartbeatMs: 200, ttlSeconds: 2 };
    const first = await registerNode({ registry: cutOff, nodeId, logger, timings });
    await sleep(300);
    await first.readiness.check();

    silent = true;
    await sleep(2300);
    const err = await first.readiness.check().catch((e: unknown) => e);
    expect(String(err)).to.match(/registration not renewed for \d+ s/);
    const second = await registerNode({ registry: real, nodeId, logger, timings });
    silent = false;
    // Its next renewal finds the NODE_ID taken (a few heartbeats at most, on a busy machine).
    let problem = '';
    for (const until = Date.now() + 3000; !/taken over/.test(problem) && Date.now() < until; await sleep(50)) {
      problem = String(await first.readiness.check().catch((e: unknown) => e));
    }

    expect(problem).to.match(/was taken over by host .+, pid \d+/);
    await second.readiness.check();
    await Promise.all([first.close(), second.close()]);
  });
});
