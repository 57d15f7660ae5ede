import { expect } from 'chai';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aDevice, TestDevice } from '../../helpers/devices';
import { sleep } from '../../helpers/mqtt';
import { asDevice } from '../../helpers/rest-device';
import { Stack } from '../../helpers/stack';

/** Within this, another node obeys a datatag change (the backbone's notice; copies expire after 5 s anyway). */
const NOTICE_MS = 1500;

/** The `unrecorded` warnings of a write: there are some only where the node applies the device's datatags. */
async function unrecordedOn(node: Stack, device: TestDevice): Promise<string[]> {
  const res = await asDevice(node, device)('PUT', '/v2/device/shadow/data', { body: { data: { temp: 'warm' } } });
  expect(res.status, res.text).to.equal(200);
  return (res.body.warnings ?? []).filter((w: { action: string }) => w.action === 'unrecorded').map((w: { field: string }) => w.field);
}

/** Polls until `done`; fails after `ms`. */
async function within(ms: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await sleep(20);
  }
}

describe('two nodes: a datatag change made through one applies on the other (issue 23 §1)', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    cluster = await startCluster(2, backboneEnvOrSkip(this));
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  it('records by tags set through A on B\'s next writes, and by today\'s rule again once A deletes them', async () => {
    const device = await aDevice(a);
    // B has read (and keeps) that the device has no datatags.
    expect(await unrecordedOn(b, device)).to.deep.equal([]);

    const put = await a.admin('PUT', `/v2/admin/devices/${device.deviceid}/datatags`, { body: [{ path: 'temp', type: 'number', attr: 't', ttl: '1d' }] });
    expect(put.status, put.text).to.equal(200);

    await within(NOTICE_MS, async () => (await unrecordedOn(b, device)).length === 1);
    expect((await a.admin('DELETE', `/v2/admin/devices/${device.deviceid}/datatags/t`)).status).to.equal(204);
    await within(NOTICE_MS, async () => (await unrecordedOn(b, device)).length === 0);
  });
});
