import { connectCassandra } from '../src/adapters/cassandra-client';
import { createCassandraDeviceStore } from '../src/adapters/cassandra-device-store';
import { cassandraReadinessCheck } from '../src/adapters/cassandra-readiness';
import { startTcpProxy } from '../test/helpers/tcp-proxy';
(async () => {
  const proxy = await startTcpProxy('127.0.0.1:29042');
  const conn = await connectCassandra({ contactPoints: [`127.0.0.1:${proxy.port}`], localDataCenter: 'datacenter1', keyspace: 'dbg_proxy', replication: 1 });
  conn.client.on('log', (level, cls, msg) => { if (level !== 'verbose' && !/Connection$/.test(cls)) console.log(Date.now() % 100000, level, cls, msg); });
  const devices = createCassandraDeviceStore(conn);
  const ready = cassandraReadinessCheck('c', conn);
  const q = async () => { try { await ready.check(); await devices.getDevice('x'); return 'ok'; } catch (e) { return (e as Error).constructor.name + ' ' + (e as Error).message.slice(0, 100); } };
  console.log('before', await q());
  proxy.cut();
  for (let i = 0; i < 5; i++) { console.log('cut', await q()); await new Promise((r) => setTimeout(r, 300)); }
  proxy.restore();
  for (let i = 0; i < 15; i++) { await new Promise((r) => setTimeout(r, 1000)); console.log('restored', i, await q()); }
  await conn.close(); await proxy.close();
  process.exit(0);
})();
