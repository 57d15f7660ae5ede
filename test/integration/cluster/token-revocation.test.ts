import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { aDevice } from '../../helpers/devices';
import { sleep } from '../../helpers/mqtt';
import { expectError } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** As in shared-state.test.ts: a notice crosses the backbone in milliseconds, well below the 5 s max age of copies. */
const NOTICE_MS = 1500;
/** Shortened from the 5 s default (SHARED_STATE_MAX_AGE_MS), for the nodes that miss every notice. */
const MAX_AGE_MS = 1000;

/** The data-store API as a user token's bearer sees it. */
const readWith = (node: Stack, token: string) => node.http('GET', '/v2/feed/api/v1/metricnames', { headers: { authorization: `Bearer ${token}` } });

/** Polls the data-store API with `token` on `node` until it answers 401; how long that took, or fails after `ms`. */
async function msUntilRefused(node: Stack, token: string, ms: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const res = await readWith(node, token);
    if (res.status === 401) {
      expect(res.body.message).to.include('revoked');
      return Date.now() - start;
    }
    if (Date.now() - start > ms) throw new Error(`token still accepted after ${ms} ms: ${res.status}`);
    await sleep(20);
  }
}

/** Issues a user token through `node` for a new project with one device. */
async function aToken(node: Stack): Promise<{ token: string; jti: string }> {
  const projectid = `p-${randomUUID().slice(0, 8)}`;
  await aDevice(node, { projectid });
  return (await node.admin('POST', '/v2/admin/tokens', { body: { projectid, ttl: 600 } })).body;
}

describe('a user token revoked through one node is refused by the others (real Cassandra and Mosquitto, issue 20 §6)', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    cassandraOrSkip(this);
    cluster = await startCluster(2, backboneEnvOrSkip(this), 'cassandra');
    [a, b] = cluster.nodes;
  });
  after(async () => {
    await cluster?.stop();
  });

  it('is refused by B on A\'s notice, though B had just accepted it, while another token goes on working on both', async () => {
    const revoked = await aToken(a);
    const kept = await aToken(b);
    // B has read (and keeps) that the token is not revoked.
    expect((await readWith(b, revoked.token)).status).to.equal(200);

    expect((await a.admin('DELETE', `/v2/admin/tokens/${revoked.jti}`)).status).to.equal(204);

    expectError(await readWith(a, revoked.token), 401, 'INVALID_CREDENTIALS');
    expect(await msUntilRefused(b, revoked.token, NOTICE_MS)).to.be.below(NOTICE_MS);
    for (const node of [a, b]) expect((await readWith(node, kept.token)).status).to.equal(200);
  });
});

describe('nodes that miss the notice (no backbone) refuse a revoked user token once their copy expires', function () {
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  let keyspace: string | undefined;
  const nodes: Stack[] = [];
  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    for (const nodeId of ['lonely-a', 'lonely-b']) {
      nodes.push(await startStack({ env: { ...cassandraStoreEnv(settings, keyspace), NODE_ID: `${nodeId}-${keyspace}` }, sharedStateMaxAgeMs: MAX_AGE_MS }));
    }
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    if (keyspace) await dropKeyspace(settings, keyspace);
  });

  it('is refused by B within the max age of its copy', async () => {
    const [a, b] = nodes;
    const { token, jti } = await aToken(a);
    expect((await readWith(b, token)).status).to.equal(200);

    expect((await a.admin('DELETE', `/v2/admin/tokens/${jti}`)).status).to.equal(204);

    expect(await msUntilRefused(b, token, MAX_AGE_MS + 1000)).to.be.at.most(MAX_AGE_MS + 500);
  });
});
