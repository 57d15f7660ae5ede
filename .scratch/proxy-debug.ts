import { Client, policies } from 'cassandra-driver';
import { startTcpProxy } from '../test/helpers/tcp-proxy';
(async () => {
  const proxy = await startTcpProxy('127.0.0.1:29042');
  const client = new Client({ contactPoints: [`127.0.0.1:${proxy.port}`], localDataCenter: 'datacenter1',
    policies: { reconnection: new policies.reconnection.ExponentialReconnectionPolicy(500, 10_000, true) } });
  client.on('log', (level, cls, msg) => { if (level !== 'verbose') console.log(Date.now() % 100000, level, cls, msg); });
  await client.connect();
  const q = async () => { try { await client.execute("SELECT key FROM system.local"); return 'ok'; } catch (e) { return (e as Error).constructor.name + ' ' + (e as Error).message.slice(0, 100); } };
  console.log('before', await q());
  proxy.cut();
  console.log('cut', await q());
  await new Promise((r) => setTimeout(r, 1500));
  console.log('cut2', await q());
  proxy.restore();
  for (let i = 0; i < 15; i++) { await new Promise((r) => setTimeout(r, 1000)); console.log('restored', i, await q()); }
  await client.shutdown(); await proxy.close();
})();
