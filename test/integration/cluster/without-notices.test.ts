import { expect } from 'chai';
import { CassandraTestSettings, cassandraOrSkip, cassandraStoreEnv, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { aDevice } from '../../helpers/devices';
import { sleep } from '../../helpers/mqtt';
import { asDevice } from '../../helpers/rest-device';
import { Stack, startStack } from '../../helpers/stack';

/** Shortened from the 5 s default (SHARED_STATE_MAX_AGE_MS), to measure the bound in a short test. */
const MAX_AGE_MS = 1000;

describe('nodes that miss change notices (no backbone) obey an admin change once their copies expire', function () {
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  let keyspace: string | undefined;
  const nodes: Stack[] = [];
  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    // Two nodes on one keyspace and no BACKBONE_URL: every notice is lost.
    for (const nodeId of ['lonely-a', 'lonely-b']) {
      nodes.push(await startStack({ env: { ...cassandraStoreEnv(settings, keyspace), NODE_ID: `${nodeId}-${keyspace}` }, sharedStateMaxAgeMs: MAX_AGE_MS }));
    }
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    if (keyspace) await dropKeyspace(settings, keyspace);
  });

  it('converts writes through B with a schema set through A within the max age of B\'s copies', async () => {
    const [a, b] = nodes;
    const device = await aDevice(a);
    const write = () => asDevice(b, device)('PUT', '/v2/device/shadow/data', { body: { data: { tempC: 20 } } });
    await write();

    const schema = { properties: { tempF: { type: 'number', autofill: true, operation: { transform: { expression: '($.tempC * 1.8) + 32' } } } } };
    const set = Date.now();
    expect((await a.admin('PUT', `/v2/admin/devices/${device.deviceid}/schema`, { body: schema })).status).to.equal(200);
    let converted = false;
    while (!converted && Date.now() - set < MAX_AGE_MS + 1000) {
      converted = (await write()).body.data.tempF === 68;
      if (!converted) await sleep(25);
    }

    expect(converted, 'converted in time').to.equal(true);
    expect(Date.now() - set).to.be.at.most(MAX_AGE_MS + 500);
  });
});
