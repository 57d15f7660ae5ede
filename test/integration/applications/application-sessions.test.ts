import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ApplicationStack, OtherNode, startApplicationStack } from './application-stack';

/**
 * Which changes end a key's live connections (applications/service.ts): the service over the real store, its
 * `sessions` port recorded (in the service it is the cluster's kick, which the MQTT side carries out).
 */
describe(`application keys: which changes end a key's connections (${process.env.TEST_STORE === 'cassandra' ? 'Cassandra' : 'SQLite'})`, function () {
  this.timeout(60_000);
  let running: ApplicationStack;
  let node: OtherNode;
  const kicked: [string, string][] = [];
  before(async () => {
    running = await startApplicationStack();
    node = await running.otherNode({ disconnect: (key, reason) => void kicked.push([key, reason]) });
  });
  after(async () => {
    await node?.close();
    await running?.stop();
  });
  beforeEach(() => {
    kicked.length = 0;
  });

  const aKey = () => node.applications.create({ projectid: `p-${randomUUID().slice(0, 8)}`, groups: ['a', 'b'] });

  it('a rotation, disabling, other groups and a revocation each end them, once', async () => {
    const { application: { key } } = await aKey();

    await node.applications.rotate(key);
    await node.applications.update(key, { groups: ['b', 'c'] });
    await node.applications.update(key, { enabled: false });
    await node.applications.revoke(key);

    expect(kicked).to.deep.equal([
      [key, 'application secret rotated'],
      [key, 'application key given other groups'],
      [key, 'application key disabled'],
      [key, 'application key revoked'],
    ]);
  });

  it('a rename, the same groups in another order, enabling and a change to an unknown key end nothing', async () => {
    const { application: { key } } = await aKey();
    await node.applications.update(key, { enabled: false });
    kicked.length = 0;

    await node.applications.update(key, { name: 'renamed', groups: ['b', 'a'] });
    await node.applications.update(key, { enabled: true });
    const unknown = randomUUID();
    await node.applications.rotate(unknown).catch(() => undefined);
    await node.applications.revoke(unknown).catch(() => undefined);

    expect(kicked).to.deep.equal([]);
  });
});
