import { CassandraConnection } from '../../../src/adapters/cassandra-client';
import { createCassandraDeviceStore } from '../../../src/adapters/cassandra-device-store';
import { createCassandraShadowStore } from '../../../src/adapters/cassandra-shadow-store';
import { CassandraTestSettings, cassandraOrSkip, connectTestKeyspace, dropKeyspace, randomKeyspace } from '../../helpers/cassandra';
import { deviceStoreContract } from './device-store.contract';
import { shadowStoreContract } from './shadow-store.contract';
import { OpenStores } from './store-under-test';

describe('store contracts on Cassandra', function () {
  // Creating and dropping a keyspace takes a few seconds; lightweight transactions take milliseconds each.
  this.timeout(60_000);
  let settings: CassandraTestSettings;
  before(function () {
    settings = cassandraOrSkip(this);
  });

  /** The Cassandra adapters on a keyspace of their own, dropped by `dispose`. */
  async function openCassandraStores(): Promise<OpenStores> {
    const keyspace = randomKeyspace();
    let conn: CassandraConnection = await connectTestKeyspace(settings, keyspace);
    const stores: OpenStores = {
      devices: createCassandraDeviceStore(conn),
      shadows: createCassandraShadowStore(conn),
      async reopen() {
        await conn.close();
        conn = await connectTestKeyspace(settings, keyspace);
        stores.devices = createCassandraDeviceStore(conn);
        stores.shadows = createCassandraShadowStore(conn);
      },
      async dispose() {
        await conn.close();
        await dropKeyspace(settings, keyspace);
      },
    };
    return stores;
  }

  deviceStoreContract('Cassandra', openCassandraStores);
  shadowStoreContract('Cassandra', openCassandraStores);
});
