import type { Client } from 'aedes';
import { Readable } from 'node:stream';
import { externalTopic, isDeviceFacing, Scope } from '../messaging/topics';
import { SessionClient, SessionPacket, SessionStore } from '../sessions/port';
import { SESSION_MARKER_FILTER } from './aedes-patches';

/**
 * What aedes is given as its `persistence`: the session store, with the parts of aedes' publish path that the
 * service does itself (message-pipeline.ts) turned off, so that they happen once per cluster and not once per node:
 *
 * - `storeRetained` and the queueing of a QoS 1/2 message for persistent sessions (`subscriptionsByTopic` +
 *   `outgoingEnqueueCombi`) are done by the node that accepted the message, before anyone may see it; aedes' own
 *   publish then only delivers to this node's connections.
 * - `streamWill` is empty: aedes' periodic will sweep takes every will whose broker it has not heard from lately for
 *   an orphan, and each node hears only itself, so it would publish the wills of devices connected to other nodes.
 *   session-upkeep.ts and session-timers.ts publish the wills a crash left behind, and the delayed ones, instead.
 * - a queued message is read back with the topic the device knows (its subscription matched the internal topic), and
 *   one that was sent before (it has its packet identifier) with DUP set [MQTT-3.3.1-1]; the replay is reported to
 *   `replaying` (session-resume.ts).
 * - a session that holds only an unfinished incoming QoS 2 exchange is still a session: its CONNACK says session
 *   present [MQTT-3.2.2-2], which aedes decides from the subscriptions alone, so it is given one that
 *   authorizeSubscribe refuses on restore (aedes-patches.ts SESSION_MARKER_FILTER).
 * - a live delivery to a persistent session whose queue entry is missing (it subscribed after the message was queued,
 *   or its full queue dropped it) gets one, so its PUBACK has an entry to clear and a reconnection resends it.
 * - the will a new connection stored stays when aedes, having published the will of the connection it took over on
 *   this node, deletes "the" will of that ClientID and broker (aedes.js publishWill).
 * - an MQTT 3.1.1 clean session has nothing in the store: aedes ended the session at CONNECT, queues nothing for it
 *   and keeps none of its subscriptions, so reading its queue at connect and clearing a PUBACK are skipped (a
 *   store round trip per connect and per acknowledged QoS 1 message). Not for MQTT 5, whose Clean Start 0 with no
 *   Session Expiry resumes a stored session that then ends with the connection.
 * - a session being wiped (aedes ends a clean one as its connection closes, without waiting for the store) is gone
 *   for the next connection of its ClientID on this node: reading its subscriptions or queue waits for the wipe.
 *   Otherwise a device that sent DISCONNECT with Session Expiry 0 and connected again at once could find it still
 *   there [MQTT-3.1.2-23] (seen with the Redis store, whose wipe takes several round trips).
 */
export function sessionPersistence(
  store: SessionStore,
  scopes: WeakMap<Client, Scope>,
  replaying: (client: SessionClient, packet: SessionPacket) => void = () => undefined,
  holdsSession: (clientId: string) => boolean = () => false,
): SessionStore {
  const view: SessionStore = Object.create(store);
  const wipes = new Map<string, Promise<unknown>>();
  return Object.assign(view, {
    async setup(broker: { id: string }) {
      await store.setup(broker);
    },
    async storeRetained() {},
    async subscriptionsByTopic() {
      return [];
    },
    async outgoingEnqueueCombi() {
      return 0;
    },
    streamWill: () => Readable.from([]),
    async cleanSubscriptions(client: SessionClient) {
      const wipe = store.cleanSubscriptions(client);
      const settled = wipe.catch(() => undefined).finally(() => wipes.get(client.id) === settled && wipes.delete(client.id));
      wipes.set(client.id, settled);
      return wipe;
    },
    async subscriptionsByClient(client: SessionClient) {
      await wipes.get(client.id);
      const subscriptions = await store.subscriptionsByClient(client);
      if (subscriptions.length > 0 || !(await store.hasIncoming(client.id))) return subscriptions;
      return [{ topic: SESSION_MARKER_FILTER, qos: 0 }];
    },
    outgoingStream(client: SessionClient) {
      if (storesNothing(client)) return Readable.from([]);
      const scope = scopes.get(client as Client);
      return Readable.from(
        (async function* external() {
          await wipes.get(client.id);
          for await (const packet of store.outgoingStream(client) as AsyncIterable<SessionPacket>) {
            replaying(client, packet);
            yield withExternalTopic(scope, resent(packet));
          }
        })(),
      );
    },
    async outgoingClearMessageId(client: SessionClient, packet: SessionPacket) {
      return storesNothing(client) ? undefined : store.outgoingClearMessageId(client, packet);
    },
    async delWill(client: SessionClient) {
      // aedes deletes the will of a connection that closed by ClientID and broker (`{ id, brokerId }`, no connection);
      // when a new connection took the session over on this node, the stored will is already the new one's.
      if (!isConnection(client) && holdsSession(client.id)) return undefined;
      return store.delWill(client);
    },
    async outgoingUpdate(client: SessionClient, packet: SessionPacket) {
      try {
        await store.outgoingUpdate(client, packet);
      } catch (err) {
        if (packet.cmd !== 'publish' || packet.brokerId === undefined) throw err;
        await store.outgoingEnqueue({ clientId: client.id }, packet);
        await store.outgoingUpdate(client, packet);
      }
    },
  } satisfies Partial<SessionStore>);
}

/** aedes passes its Client for a connection's own calls, a bare `{ id, brokerId }` for a will it has published. */
const isConnection = (client: SessionClient) => typeof (client as Partial<Client>).close === 'function';

/** An MQTT 3.1.1 (or 3.1) connection with CleanSession 1 (aedes: `clean`, the session ends with the connection). */
function storesNothing(client: SessionClient): boolean {
  const connection = client as Partial<Pick<Client, 'clean' | 'version'>>;
  return connection.clean === true && connection.version !== undefined && connection.version < 5;
}

/** A queued PUBLISH that was sent and not acknowledged goes again with DUP set [MQTT-3.3.1-1] [MQTT-4.4.0-1]. */
function resent(packet: SessionPacket): SessionPacket {
  return packet.messageId !== undefined && packet.cmd === 'publish' && !packet.dup ? { ...packet, dup: true } : packet;
}

/**
 * A queued PUBLISH as the device knows it. PUBRELs have no topic; a topic already external (aedes wrote an updated
 * packet back) stays; one outside the device's scope cannot be in its queue, and goes as it is to authorizeForward,
 * which refuses it and clears the entry.
 */
function withExternalTopic(scope: Scope | undefined, packet: SessionPacket): SessionPacket {
  if (packet.topic === undefined || isDeviceFacing(packet.topic) || !scope) return packet;
  const topic = externalTopic(scope, packet.topic);
  return topic === undefined ? packet : { ...packet, topic };
}
