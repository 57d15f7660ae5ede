import { expect } from 'chai';
import { DEVICE_CACHE_DEFAULTS } from '../../../src/devices/device-cache';
import { backboneEnvOrSkip, Cluster, startCluster } from '../../helpers/cluster';
import { aDevice, TestDevice } from '../../helpers/devices';
import { sleep } from '../../helpers/mqtt';
import { Stack } from '../../helpers/stack';

/**
 * Each node keeps the device records it reads (src/devices/device-cache.ts); the node that changes a device tells
 * the others on the backbone (`openpie/v1/changed/{deviceid}`), so they drop theirs. Checked well inside the cache's
 * TTL, which only bounds what a lost notice costs.
 */
const NOTICE_MS = 1500;

async function statusOn(node: Stack, device: TestDevice, auth = device.auth): Promise<number> {
  return (await node.http('GET', '/v2/device/status', { headers: { authorization: auth } })).status;
}

/** The HTTP status GET /v2/device/status answers on `node` once it is `want`, or the last one after `ms`. */
async function statusBecomes(node: Stack, device: TestDevice, want: number, auth = device.auth, ms = NOTICE_MS): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await statusOn(node, device, auth);
    if (status === want || Date.now() > deadline) return status;
    await sleep(20);
  }
}

describe('MQTT backbone: device changes reach the other nodes\' device caches (real Mosquitto)', () => {
  let cluster: Cluster | undefined;
  let a: Stack;
  let b: Stack;
  before(async function () {
    const env = backboneEnvOrSkip(this);
    cluster = await startCluster(2, env);
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  it('checks the notice well inside the TTL, which would hide a missing one', () => {
    expect(NOTICE_MS).to.be.below(DEVICE_CACHE_DEFAULTS.ttlMs / 2);
  });

  it('refuses a token rotated on node A on node B too, and takes the new one there', async () => {
    const device = await aDevice(a);
    expect(await statusOn(b, device)).to.equal(200);

    const rotated = await a.admin('POST', `/v2/admin/devices/${device.deviceid}/token`);

    expect(rotated.status).to.equal(200);
    expect(await statusBecomes(b, device, 401)).to.equal(401);
    expect(await statusOn(b, device, `Device ${device.deviceid}:${rotated.body.token}`)).to.equal(200);
  });

  it('refuses a device disabled on node A on node B, and takes it back there once enabled again', async () => {
    const device = await aDevice(a);
    expect(await statusOn(b, device)).to.equal(200);

    expect((await a.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: false } })).status).to.equal(200);
    expect(await statusBecomes(b, device, 403)).to.equal(403);

    expect((await a.admin('PATCH', `/v2/admin/devices/${device.deviceid}`, { body: { enabled: true } })).status).to.equal(200);
    expect(await statusBecomes(b, device, 200)).to.equal(200);
  });
});
