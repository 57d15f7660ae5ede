import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SessionPacket, SessionStore } from '../../../src/sessions/port';

/** Opens a fresh, empty session store with this queue limit; `reopen` reads the same data through a new instance. */
export type OpenSessionStore = (queueLimit: number) => Promise<{
  store: SessionStore;
  reopen(): Promise<SessionStore>;
  dispose(): Promise<void>;
}>;

const readAll = async <T>(stream: AsyncIterable<unknown>) => {
  const items: T[] = [];
  for await (const item of stream) items.push(item as T);
  return items;
};

/**
 * What the service needs of a session store beyond aedes-persistence's abstract suite (test/persistence), which never
 * checks MQTT 5 properties, bounds, expiry or a store shared by several brokers.
 */
export function sessionStoreContract(adapter: string, open: OpenSessionStore): void {
  describe(`SessionStore contract: ${adapter}`, () => {
    let opened: Awaited<ReturnType<OpenSessionStore>>;
    let store: SessionStore;
    before(async () => {
      opened = await open(3);
      store = opened.store;
      await store.setup({ id: 'node-a:1' });
    });
    after(async () => {
      await opened?.dispose();
    });
    const aClient = () => `c-${randomUUID()}`;
    let counter = 0;
    const aMessage = (topic: string, fields: Partial<SessionPacket> = {}): SessionPacket => ({
      cmd: 'publish', topic, payload: Buffer.from(`m${++counter}`), qos: 1, retain: false, dup: false,
      brokerId: 'node-a:1.q1', brokerCounter: counter, ...fields,
    });

    it('gives back queued messages with their MQTT 5 properties, Buffers and all, and string payloads as strings', async () => {
      const client = aClient();
      const properties = { correlationData: Buffer.from([0, 1, 2]), userProperties: { a: 'b', list: ['x', 'y'] }, contentType: 'text/plain' };
      await store.outgoingEnqueueCombi([{ clientId: client }], aMessage('a/b', { properties, messageExpiry: 1_700_000_000_000 }));
      await store.outgoingEnqueueCombi([{ clientId: client }], aMessage('a/c', { payload: 'text' }));

      const [first, second] = await readAll<SessionPacket>(store.outgoingStream({ id: client }));

      expect(first.properties).to.deep.equal(properties);
      expect(Buffer.isBuffer((first.properties as { correlationData: unknown }).correlationData)).to.equal(true);
      expect(first.messageExpiry).to.equal(1_700_000_000_000);
      expect(second.payload).to.equal('text');
    });

    it('holds at most the queue limit, dropping the oldest, and counts the drops once for the returning client', async () => {
      const client = aClient();
      let dropped = 0;
      for (let i = 1; i <= 5; i++) dropped += await store.outgoingEnqueueCombi([{ clientId: client }], aMessage('q', { payload: Buffer.from(`n${i}`) }));

      const queued = await readAll<SessionPacket>(store.outgoingStream({ id: client }));

      expect(dropped).to.equal(2);
      expect(queued.map((p) => String(p.payload))).to.deep.equal(['n3', 'n4', 'n5']);
      expect(await store.takeDropped(client)).to.equal(2);
      expect(await store.takeDropped(client)).to.equal(0);
    });

    it('never drops a PUBREL for the queue limit: the QoS 2 handshake it belongs to must finish', async () => {
      const client = aClient();
      const first = aMessage('q2', { qos: 2 });
      await store.outgoingEnqueueCombi([{ clientId: client }], first);
      await store.outgoingUpdate({ id: client }, { ...first, messageId: 7 });
      await store.outgoingUpdate({ id: client }, { cmd: 'pubrel', messageId: 7 });
      for (let i = 0; i < 4; i++) await store.outgoingEnqueueCombi([{ clientId: client }], aMessage('q2'));

      const queued = await readAll<SessionPacket>(store.outgoingStream({ id: client }));

      expect(queued.map((p) => p.cmd)).to.deep.equal(['pubrel', 'publish', 'publish', 'publish']);
    });

    it('keeps two QoS 2 handshakes apart: each PUBREL replaces its own message, each PUBCOMP clears its own', async () => {
      const client = aClient();
      const [first, second] = [aMessage('two', { qos: 2 }), aMessage('two', { qos: 2 })];
      await store.outgoingEnqueueCombi([{ clientId: client }], first);
      await store.outgoingEnqueueCombi([{ clientId: client }], second);
      await store.outgoingUpdate({ id: client }, { ...first, messageId: 11 });
      await store.outgoingUpdate({ id: client }, { ...second, messageId: 12 });

      await store.outgoingUpdate({ id: client }, { cmd: 'pubrel', messageId: 11 });
      await store.outgoingUpdate({ id: client }, { cmd: 'pubrel', messageId: 12 });
      const released = await readAll<SessionPacket>(store.outgoingStream({ id: client }));
      const completed = await store.outgoingClearMessageId({ id: client }, { messageId: 12 });

      expect(released.map((p) => `${p.cmd} ${p.messageId}`)).to.deep.equal(['pubrel 11', 'pubrel 12']);
      expect(completed?.messageId).to.equal(12);
      expect((await readAll<SessionPacket>(store.outgoingStream({ id: client }))).map((p) => p.messageId)).to.deep.equal([11]);
    });

    it('counts the messages waiting in every queue', async () => {
      const before = await store.queuedMessages();
      const [one, two] = [aClient(), aClient()];

      await store.outgoingEnqueueCombi([{ clientId: one }, { clientId: two }], aMessage('count'));
      const sent = aMessage('count');
      await store.outgoingEnqueueCombi([{ clientId: one }], sent);
      await store.outgoingUpdate({ id: one }, { ...sent, messageId: 3 });
      await store.outgoingClearMessageId({ id: one }, { messageId: 3 });

      expect(await store.queuedMessages()).to.equal(before + 2);
    });

    it('tells whether a session holds an incoming QoS 2 message whose PUBREL has not come', async () => {
      const client = aClient();
      const before = await store.hasIncoming(client);

      await store.incomingStorePacket({ id: client }, { cmd: 'publish', topic: 'in', qos: 2, messageId: 5 });
      const during = await store.hasIncoming(client);
      await store.incomingDelPacket({ id: client }, { messageId: 5 });

      expect([before, during, await store.hasIncoming(client)]).to.deep.equal([false, true, false]);
    });

    it('takes back a refused message from the queues that have not sent it, and leaves one already sent', async () => {
      const [waiting, sending] = [aClient(), aClient()];
      const message = aMessage('refused');
      await store.outgoingEnqueueCombi([{ clientId: waiting }, { clientId: sending }], message);
      await store.outgoingUpdate({ id: sending }, { ...message, messageId: 9 });

      await store.outgoingDiscard([waiting, sending], message);

      expect(await readAll(store.outgoingStream({ id: waiting }))).to.deep.equal([]);
      expect(await readAll(store.outgoingStream({ id: sending }))).to.have.length(1);
    });

    it('finds the subscriptions of every client whose filter matches, whatever its wildcards', async () => {
      const [one, two, three] = [aClient(), aClient(), aClient()];
      const scope = `s-${randomUUID()}`;
      await store.addSubscriptions({ id: one }, [{ topic: `${scope}/g/@msg/#`, qos: 1 }, { topic: `${scope}/g/@msg/a/+`, qos: 2 }]);
      await store.addSubscriptions({ id: two }, [{ topic: `${scope}/+/@msg/a/b`, qos: 1 }, { topic: `${scope}/g/@msg/a/b`, qos: 0 }]);
      await store.addSubscriptions({ id: three }, [{ topic: `${scope}/g/@msg/other`, qos: 1 }]);

      const matched = await store.subscriptionsByTopic(`${scope}/g/@msg/a/b`);

      expect(matched.map((s) => `${s.clientId === one ? 'one' : 'two'} ${s.topic.slice(scope.length)} ${s.qos}`).sort()).to.deep.equal([
        'one /g/@msg/# 1',
        'one /g/@msg/a/+ 2',
        'two /+/@msg/a/b 1',
      ]);
    });

    it('keeps a scope to its retained limit, but always lets a topic be replaced or cleared', async () => {
      const scope = `$openpie/g/p-${randomUUID().slice(0, 8)}/g/`;
      const retained = (rest: string, payload = 'x') => aMessage(`${scope}@msg/${rest}`, { retain: true, payload: Buffer.from(payload) });
      const limit = 2;

      const results = [
        await store.storeRetainedWithin(retained('a'), scope, limit),
        await store.storeRetainedWithin(retained('b'), scope, limit),
        await store.storeRetainedWithin(retained('c'), scope, limit),
        await store.storeRetainedWithin(retained('a', 'again'), scope, limit),
        await store.storeRetainedWithin(retained('b', ''), scope, limit),
        await store.storeRetainedWithin(retained('c'), scope, limit),
      ];

      expect(results).to.deep.equal([true, true, false, true, true, true]);
      const kept = await readAll<SessionPacket>(store.createRetainedStreamCombi([`${scope}@msg/#`]));
      expect(kept.map((p) => `${p.topic!.slice(scope.length)}=${String(p.payload)}`).sort()).to.deep.equal(['@msg/a=again', '@msg/c=x']);
    });

    it('stops matching a subscription once it is removed or lowered to QoS 0', async () => {
      const [lowered, removed, kept] = [aClient(), aClient(), aClient()];
      const topic = `change/${randomUUID()}`;
      for (const client of [lowered, removed, kept]) await store.addSubscriptions({ id: client }, [{ topic, qos: 1 }]);

      await store.addSubscriptions({ id: lowered }, [{ topic, qos: 0 }]);
      await store.removeSubscriptions({ id: removed }, [topic]);

      expect((await store.subscriptionsByTopic(topic)).map((sub) => sub.clientId)).to.deep.equal([kept]);
    });

    it('ends sessions idle since before the cut-off unless their client is online, with their queue and will', async () => {
      const [idle, online, recent] = [aClient(), aClient(), aClient()];
      for (const client of [idle, online, recent]) {
        await store.addSubscriptions({ id: client }, [{ topic: `expiry/${client}`, qos: 1 }]);
        await store.outgoingEnqueueCombi([{ clientId: client }], aMessage(`expiry/${client}`));
        await store.putWill({ id: client }, { cmd: 'publish', topic: 'will', payload: Buffer.from('bye'), qos: 1, retain: false });
      }
      await store.sessionDisconnected(idle, 1_000, 'broker-a');
      await store.sessionDisconnected(online, 1_000, 'broker-a');
      await store.sessionDisconnected(recent, 5_000, 'broker-a');

      const ended = await store.expireSessions(2_000, (clientId) => clientId === online);

      expect(ended).to.deep.equal([idle]);
      expect(await store.subscriptionsByClient({ id: idle })).to.deep.equal([]);
      expect(await store.subscriptionsByTopic(`expiry/${idle}`)).to.deep.equal([]);
      expect(await readAll(store.outgoingStream({ id: idle }))).to.deep.equal([]);
      expect(await store.getWill({ id: idle })).to.equal(undefined);
      expect(await store.subscriptionsByClient({ id: online })).to.have.length(1);
      expect(await store.subscriptionsByClient({ id: recent })).to.have.length(1);
    });

    it('deletes a will only for the broker that owns it, when one is named', async () => {
      const client = aClient();
      await store.putWill({ id: client }, { cmd: 'publish', topic: 'will', payload: Buffer.from('bye'), qos: 0, retain: false });

      const byOther = await store.delWill({ id: client, brokerId: 'node-b:1' });
      const byOwner = await store.delWill({ id: client, brokerId: 'node-a:1' });

      expect(byOther).to.equal(undefined);
      expect(byOwner?.brokerId).to.equal('node-a:1');
      expect(await store.getWill({ id: client })).to.equal(undefined);
    });

    it('keeps everything for the next instance on the same data (a restart)', async () => {
      const client = aClient();
      await store.addSubscriptions({ id: client }, [{ topic: 'restart/#', qos: 2 }]);
      await store.outgoingEnqueueCombi([{ clientId: client }], aMessage('restart/x', { qos: 2 }));
      await store.incomingStorePacket({ id: client }, { cmd: 'publish', topic: 'in', qos: 2, messageId: 42 });

      const next = await opened.reopen();
      await next.setup({ id: 'node-a:2' });

      expect(await next.subscriptionsByClient({ id: client })).to.deep.equal([{ topic: 'restart/#', qos: 2, rh: undefined, rap: undefined, nl: undefined }]);
      expect((await next.subscriptionsByTopic('restart/y')).map((sub) => [sub.clientId, sub.qos])).to.deep.equal([[client, 2]]);
      expect((await readAll<SessionPacket>(next.outgoingStream({ id: client }))).map((p) => p.topic)).to.deep.equal(['restart/x']);
      expect((await next.incomingGetPacket({ id: client }, { messageId: 42 })).messageId).to.equal(42);
      store = next;
    });

    it('ends, after a restart, the session, will and incoming QoS 2 state stored before it', async () => {
      const client = aClient();
      await store.addSubscriptions({ id: client }, [{ topic: 'restart-end/#', qos: 1 }]);
      await store.outgoingEnqueueCombi([{ clientId: client }], aMessage('restart-end/x'));
      await store.putWill({ id: client }, { cmd: 'publish', topic: 'will', payload: Buffer.from('bye'), qos: 1, retain: false });
      await store.incomingStorePacket({ id: client }, { cmd: 'publish', topic: 'in', qos: 2, messageId: 7 });

      const next = await opened.reopen();
      await next.setup({ id: 'node-a:3' });
      expect(await next.hasIncoming(client)).to.equal(true);
      await next.cleanSubscriptions({ id: client });
      expect((await next.delWill({ id: client }))?.topic).to.equal('will');
      await next.cleanIncoming({ id: client });

      expect(await next.subscriptionsByClient({ id: client })).to.deep.equal([]);
      expect(await next.subscriptionsByTopic('restart-end/x')).to.deep.equal([]);
      expect(await readAll(next.outgoingStream({ id: client }))).to.deep.equal([]);
      expect(await next.getWill({ id: client })).to.equal(undefined);
      expect(await next.hasIncoming(client)).to.equal(false);
      store = next;
    });
  });
}
