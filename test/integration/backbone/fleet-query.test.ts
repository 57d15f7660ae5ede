import { expect } from 'chai';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { TestDevice } from '../../helpers/devices';
import { shadowSession, UPDATE, UPDATED } from '../../helpers/mqtt-shadow';
import { asDevice } from '../../helpers/rest-device';
import { Stack } from '../../helpers/stack';
import { adminQuery, aFleet, eventually } from '../fleet/fleet-helpers';

/** What the fleet query answers on `node`: each device's battery, in the order asked. */
async function answerOn(node: Stack, projectid: string): Promise<[string, unknown][]> {
  const res = await adminQuery(node, projectid, { filter: '$.battery < 50', sort: { field: 'battery' }, fields: ['battery'] });
  expect(res.status, res.text).to.equal(200);
  return res.body.items.map((item: { deviceid: string; data: { battery?: unknown } }) => [item.deviceid, item.data.battery]);
}

describe('MQTT backbone: the fleet query gives the same answer on every node (real Mosquitto)', () => {
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    this.timeout(90_000);
    const env = backboneEnvOrSkip(this);
    cluster = await startCluster(2, env);
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  it('follows writes and deletions made through either node, on both', async () => {
    const fleet: TestDevice[] = await aFleet(a, [{ data: { battery: 10 } }, { data: { battery: 20 } }, { data: { battery: 30 } }]);
    const { projectid } = fleet[0];
    // Both nodes hold the project's index from here on.
    expect(await answerOn(a, projectid)).to.deep.equal(await answerOn(b, projectid));

    expect((await asDevice(a, fleet[0])('PUT', '/v2/device/shadow/data', { body: { data: { battery: 45 } } })).status).to.equal(200);
    const session = await shadowSession(b, fleet[1]);
    try {
      await session.ask(UPDATE, { data: { battery: 60 } }, UPDATED);
    } finally {
      await session.end();
    }
    expect((await b.admin('DELETE', `/v2/admin/devices/${fleet[2].deviceid}`)).status).to.equal(204);

    const want = [[fleet[0].deviceid, 45]];
    await eventually(async () => {
      expect(await answerOn(a, projectid)).to.deep.equal(want);
      expect(await answerOn(b, projectid)).to.deep.equal(want);
    });
  });
});
