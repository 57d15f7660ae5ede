import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SessionPacket, SessionStore } from '../../../src/sessions/port';

/** A fresh, empty session store, and `another` instance on the same data (a second node, or a second run). */
export type OpenTimedStore = () => Promise<{ store: SessionStore; another(): Promise<SessionStore>; dispose(): Promise<void> }>;

const readAll = async <T>(stream: AsyncIterable<unknown>) => {
  const items: T[] = [];
  for await (const item of stream) items.push(item as T);
  return items;
};

/**
 * The MQTT 5 timers of a session store (sessions/port.ts "MQTT 5 timers"): deadlines and due times kept with the
 * session, handed to one caller only when they pass.
 */
export function sessionTimersContract(adapter: string, open: OpenTimedStore): void {
  describe(`SessionStore MQTT 5 timers: ${adapter}`, () => {
    let opened: Awaited<ReturnType<OpenTimedStore>>;
    let store: SessionStore;
    before(async () => {
      opened = await open();
      store = opened.store;
      await store.setup({ id: 'node-a:1' });
    });
    after(async () => {
      await opened?.dispose();
    });
    const aClient = () => `c-${randomUUID()}`;
    const nobody = (_clientId: string) => false;
    const aWill = (payload = 'bye'): SessionPacket => ({
      cmd: 'publish', topic: '@msg/will', payload: Buffer.from(payload), qos: 1, retain: false,
      properties: { willDelayInterval: 2, userProperties: { why: 'power' } },
    });
    /** A session with a subscription, a queued message, an incoming QoS 2 packet and a will, whose connection ended. */
    async function aSessionLeft(client: string, deadline: number): Promise<void> {
      await store.sessionConnected(client, 1_000, 'node-a:1', 4_000);
      await store.addSubscriptions({ id: client }, [{ topic: `timers/${client}`, qos: 1 }]);
      await store.outgoingEnqueueCombi([{ clientId: client }], { cmd: 'publish', topic: `timers/${client}`, payload: Buffer.from('q'), qos: 1, retain: false, brokerId: 'node-a:1', brokerCounter: 1 });
      await store.incomingStorePacket({ id: client }, { cmd: 'publish', topic: 'in', qos: 2, messageId: 7 });
      await store.putWill({ id: client }, aWill());
      await store.sessionDisconnected(client, deadline - 4_000, 'node-a:1', deadline);
    }
    const ended = async (now: number, online = nobody) => (await store.endDueSessions(now, online)).map((end) => end.clientId);

    describe('Session Expiry Interval', () => {
      it('[MQTT-3.1.2-23] ends a session at its deadline, not before, with its subscriptions, queue and QoS 2 state, and hands over its will', async () => {
        const client = aClient();
        await aSessionLeft(client, 10_000);

        const early = await ended(9_999);
        const due = await store.endDueSessions(10_000, nobody);

        expect(early).to.not.include(client);
        const end = due.find((e) => e.clientId === client);
        expect(end?.will?.payload).to.deep.equal(Buffer.from('bye'));
        expect(end?.will?.properties).to.deep.equal({ willDelayInterval: 2, userProperties: { why: 'power' } });
        expect(await store.subscriptionsByClient({ id: client })).to.deep.equal([]);
        expect(await store.subscriptionsByTopic(`timers/${client}`)).to.deep.equal([]);
        expect(await readAll(store.outgoingStream({ id: client }))).to.deep.equal([]);
        expect(await store.hasIncoming(client)).to.equal(false);
        expect(await store.getWill({ id: client })).to.equal(undefined);
        expect(await ended(20_000)).to.not.include(client);
      });

      it('keeps a session whose client connected again before its deadline, or is online on another node', async () => {
        const [back, online] = [aClient(), aClient()];
        await aSessionLeft(back, 10_000);
        await aSessionLeft(online, 10_000);
        await store.sessionConnected(back, 8_000, 'node-b:1', 4_000);

        const gone = await ended(11_000, (clientId) => clientId === online);

        expect(gone).to.not.include(back);
        expect(gone).to.not.include(online);
        expect(await store.subscriptionsByClient({ id: back })).to.have.length(1);
        expect(await store.subscriptionsByClient({ id: online })).to.have.length(1);
      });

      it('sets no deadline when the broker ending a connection no longer holds the session (taken over elsewhere)', async () => {
        const client = aClient();
        await store.sessionConnected(client, 1_000, 'node-b:1', 4_000);

        await store.sessionDisconnected(client, 2_000, 'node-a:1', 6_000);

        expect(await ended(100_000)).to.not.include(client);
      });

      it('gives the sessions a crashed broker held their interval from now, once', async () => {
        const [cut, elsewhere] = [aClient(), aClient()];
        await store.sessionConnected(cut, 1_000, 'node-a:0', 4_000);
        await store.sessionConnected(elsewhere, 1_000, 'node-b:1', 4_000);

        const released = await store.releaseOrphanedSessions((broker) => broker === 'node-a:0', 50_000);
        const again = await store.releaseOrphanedSessions((broker) => broker === 'node-a:0', 60_000);

        expect(released.get(cut)).to.equal(54_000);
        expect(released.has(elsewhere)).to.equal(false);
        expect(again.has(cut)).to.equal(false);
        expect(await store.sessionDeadline(cut), 'the deadline, for a second node taking over the same run').to.equal(54_000);
        expect(await store.sessionDeadline(elsewhere), 'none while held').to.equal(undefined);
        expect(await ended(53_999)).to.not.include(cut);
        expect(await ended(54_000)).to.include(cut);
      });

      it('has no deadline for a session without an interval (MQTT 3.1.1), even when it had one before', async () => {
        const client = aClient();
        await aSessionLeft(client, 10_000);

        await store.sessionConnected(client, 8_000, 'node-a:1');
        await store.sessionDisconnected(client, 9_000, 'node-a:1');

        expect(await ended(100_000)).to.not.include(client);
        expect(await store.releaseOrphanedSessions(() => true, 100_000)).to.not.have.key(client);
      });
    });

    describe('Will Delay Interval', () => {
      it('[MQTT-3.1.3-9] hands a delayed will over when it is due, not before, once; it is no orphan meanwhile', async () => {
        const client = aClient();
        await store.putWill({ id: client }, aWill());

        const delayed = await store.delayWill({ id: client, brokerId: 'node-a:1' }, 5_000);
        const orphans = await readAll<SessionPacket>(store.streamWill({}));
        const early = await store.takeDueWills(4_999);
        const due = await store.takeDueWills(5_000);
        const again = await store.takeDueWills(6_000);

        expect(delayed).to.equal(true);
        expect(orphans.map((will) => will.clientId)).to.not.include(client);
        expect(early.map((will) => will.clientId)).to.not.include(client);
        const will = due.find((w) => w.clientId === client);
        expect(will?.properties).to.deep.equal({ willDelayInterval: 2, userProperties: { why: 'power' } });
        expect(will?.brokerId).to.equal('node-a:1');
        expect(again.map((w) => w.clientId)).to.not.include(client);
        expect(await store.getWill({ id: client })).to.equal(undefined);
      });

      it('delays a will only for the broker that owns it', async () => {
        const client = aClient();
        await store.putWill({ id: client }, aWill());

        expect(await store.delayWill({ id: client, brokerId: 'node-b:1' }, 5_000)).to.equal(false);
        expect(await store.delayWill({ id: aClient(), brokerId: 'node-a:1' }, 5_000)).to.equal(false);
        expect((await store.takeDueWills(100_000)).map((w) => w.clientId)).to.not.include(client);
      });

      it('[MQTT-3.1.3-9] forgets the delay when a new connection stores its will or deletes it', async () => {
        const [replaced, deleted] = [aClient(), aClient()];
        for (const client of [replaced, deleted]) {
          await store.putWill({ id: client }, aWill());
          await store.delayWill({ id: client, brokerId: 'node-a:1' }, 5_000);
        }

        await store.putWill({ id: replaced }, aWill('new'));
        await store.delWill({ id: deleted });

        const due = (await store.takeDueWills(100_000)).map((w) => w.clientId);
        expect(due).to.not.include(replaced);
        expect(due).to.not.include(deleted);
        expect((await store.getWill({ id: replaced }))?.payload).to.deep.equal(Buffer.from('new'));
      });

      it('takes back a will it could not publish, unless its client stored another since', async () => {
        const [failed, superseded] = [aClient(), aClient()];
        for (const client of [failed, superseded]) {
          await store.putWill({ id: client }, aWill());
          await store.delayWill({ id: client, brokerId: 'node-a:1' }, 5_000);
        }
        const taken = (await store.takeDueWills(5_000)).filter((w) => w.clientId === failed || w.clientId === superseded);
        await store.putWill({ id: superseded }, aWill('new'));

        for (const will of taken) await store.returnWill(will, 9_000);

        expect((await store.takeDueWills(8_999)).map((w) => w.clientId)).to.not.include(failed);
        expect((await store.takeDueWills(9_000)).map((w) => w.clientId)).to.include(failed).and.not.include(superseded);
        expect((await store.getWill({ id: superseded }))?.payload).to.deep.equal(Buffer.from('new'));
      });
    });

    it('gives each due will and each due session to one of two instances sweeping at once', async () => {
      const other = await opened.another();
      await other.setup({ id: 'node-b:1' });
      const clients = Array.from({ length: 20 }, aClient);
      for (const client of clients) {
        await aSessionLeft(client, 30_000);
        await store.delayWill({ id: client, brokerId: 'node-a:1' }, 25_000);
      }

      const wills = await Promise.all([store.takeDueWills(25_000), other.takeDueWills(25_000)]);
      const sessions = await Promise.all([store.endDueSessions(30_000, nobody), other.endDueSessions(30_000, nobody)]);

      const willsOf = wills.flat().map((will) => will.clientId).filter((id) => clients.includes(id!));
      const endsOf = sessions.flat().filter((end) => clients.includes(end.clientId));
      expect(willsOf.sort()).to.deep.equal([...clients].sort());
      expect(endsOf.map((end) => end.clientId).sort()).to.deep.equal([...clients].sort());
      expect(endsOf.filter((end) => end.will), 'wills already taken').to.deep.equal([]);
    });
  });
}
