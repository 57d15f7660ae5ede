import { expect } from 'chai';
import { Client, errors, types } from 'cassandra-driver';
import { CassandraConnection } from '../../../src/adapters/cassandra/cassandra-client';
import { createCassandraDeviceStore } from '../../../src/adapters/cassandra/cassandra-device-store';
import { createCassandraShadowStore } from '../../../src/adapters/cassandra/cassandra-shadow-store';
import { CassandraTestSettings, cassandraOrSkip, connectTestKeyspace, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { aDeviceRecord, aPointOf, drainOutbox, testCredentialKey } from '../contracts/store-under-test';

/** What Cassandra answers when a lightweight transaction's Paxos round outlives the coordinator's patience. */
function casWriteTimeout(): Error {
  const err = new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'CAS operation timed out: received 0 of 1 required responses');
  Object.assign(err, { writeType: 'CAS' });
  return err;
}

/**
 * The connection with a fault injected into the next conditional shadow write (a BATCH): its answer is lost, after
 * (`applied`) or before (`dropped`) Cassandra got it.
 */
function losingNextAnswer(conn: CassandraConnection, fault: 'applied' | 'dropped'): CassandraConnection {
  let armed = true;
  const client = new Proxy(conn.client, {
    get(target, key, receiver) {
      if (key !== 'batch') return Reflect.get(target, key, receiver) as unknown;
      return async (...args: Parameters<Client['batch']>) => {
        if (!armed) return target.batch(...args);
        armed = false;
        if (fault === 'applied') await target.batch(...args);
        throw casWriteTimeout();
      };
    },
  });
  return { ...conn, client };
}

// A write whose answer never came may or may not be applied; the store reads the outcome back (SERIAL) instead of
// guessing, so a retry never applies a write twice and an applied write is never reported as lost.
describe('Cassandra shadow store: a write whose answer was lost', function () {
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  let keyspace: string;
  let conn: CassandraConnection;

  before(async function () {
    settings = cassandraOrSkip(this);
    keyspace = randomKeyspace();
    conn = await connectTestKeyspace(settings, keyspace);
  });
  after(async () => {
    await conn?.close();
    if (keyspace) await dropKeyspace(settings, keyspace);
  });

  for (const [fault, expected] of [['applied', true], ['dropped', false]] as const) {
    it(`reports a write ${fault} before its answer was lost as ${expected ? 'committed' : 'not committed'}`, async () => {
      const device = aDeviceRecord();
      await createCassandraDeviceStore(conn, testCredentialKey).insertDevice(device);
      const shadows = createCassandraShadowStore(losingNextAnswer(conn, fault));
      const shadow = { deviceid: device.deviceid, data: { a: 1 }, rev: 1, modified: 1, timestamp: 1 };
      const points = [aPointOf(device.deviceid, 'a', 1, 1)];
      await drainOutbox(shadows);

      const committed = await shadows.commitShadowWrite({ shadow, expectedRev: 0, points });

      expect(committed).to.equal(expected);
      expect(await shadows.readShadow(device.deviceid)).to.deep.equal(expected ? shadow : undefined);
      expect(await drainOutbox(shadows)).to.deep.equal(expected ? points : []);
    });
  }
});
