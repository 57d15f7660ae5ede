import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { sleep } from '../../helpers/mqtt';
import { Stack } from '../../helpers/stack';

/** Well below the 5 s after which a node's copy expires anyway: the test fails if notices stopped working. */
const NOTICE_MS = 1500;

describe("two nodes share a project's retention of points (issue 23 §2)", function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    cluster = await startCluster(2, { ...backboneEnvOrSkip(this), POINT_RETENTION: '90d' });
    [a, b] = cluster.nodes;
  });
  after(async () => {
    await cluster?.stop();
  });

  it('applies a retention set or cleared through one node on the other at once, though it had read the old one', async () => {
    const path = `/v2/admin/projects/p-${randomUUID().slice(0, 8)}/retention`;
    const effectiveOnB = async () => (await b.admin('GET', path)).body.effective as string;
    // B reads (and keeps) the project's retention: none of its own, the service default.
    expect(await effectiveOnB()).to.equal('90d');

    expect((await a.admin('PUT', path, { body: { retention: '7d' } })).status).to.equal(200);

    const until = async (expected: string) => {
      const start = Date.now();
      while ((await effectiveOnB()) !== expected) {
        if (Date.now() - start > NOTICE_MS) throw new Error(`B still answers ${await effectiveOnB()} after ${NOTICE_MS} ms`);
        await sleep(20);
      }
    };
    await until('7d');
    expect((await a.admin('DELETE', path)).status).to.equal(204);
    await until('90d');
  });
});
