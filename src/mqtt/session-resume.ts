import type { Aedes, Client, ConnectPacket } from 'aedes';
import type { Logger } from 'pino';
import { SessionPacket } from '../sessions/port';
import { Delivery, readCleanAsPersistentWhile, wrapDeliveries } from './aedes2-patches';
import { MQTT_LIMITS } from './v5/limits';
import { REASON } from './v5/reason-codes';

interface Resume {
  held: { packet: SessionPacket; deliver: Delivery }[];
  /** The messages of the stored queue as it was read at CONNECT, by broker id and counter. */
  replayed: Set<string>;
}

const identity = (packet: SessionPacket) => `${packet.brokerId}#${packet.brokerCounter}`;

/**
 * The resume of a stored session, in order (issue 17). aedes 2.0.0-beta.1 restores a session's subscriptions, sends
 * CONNACK, then replays the queue it read from the store; a message published meanwhile reaches the client live
 * before that backlog, and, being queued too, a second time inside it. Here a connection that may resume (Clean Start
 * / CleanSession 0) holds its live deliveries from CONNECT until aedes reports it connected (`connected`, after the
 * replay), then lets them go in arrival order, leaving out those the replay already sent: the backlog first, in
 * order [MQTT-4.6.0-6], and no message twice but an unacknowledged one resent with DUP set [MQTT-4.4.0-1].
 * A held QoS 1/2 message is in the session's queue already, so a connection that ends while holding loses none.
 *
 * MQTT 5 Clean Start 0 without a Session Expiry resumes the stored session too, and ends it when this connection
 * closes [MQTT-3.1.2-5] [MQTT-3.1.2-23]; aedes reads that connection as clean while replaying and drops the queue
 * instead of sending it, so such a connection reads as persistent until its replay is done.
 */
export function createSessionResume(logger: Logger) {
  const resumes = new WeakMap<Client, Resume>();

  function release(client: Client, resume: Resume): void {
    resumes.delete(client);
    for (const { packet, deliver } of resume.held) {
      if (!resume.replayed.has(identity(packet))) deliver(packet, () => undefined);
    }
    resume.held.length = 0;
  }

  return {
    /** From preConnect: a connection that may resume a session holds its live deliveries until its replay is done. */
    connecting(client: Client, packet: ConnectPacket): void {
      if (packet.clean !== false) return;
      const resume: Resume = { held: [], replayed: new Set() };
      resumes.set(client, resume);
      wrapDeliveries(client, (deliver) => (message, done) => {
        if (!resumes.has(client)) return deliver(message, done);
        resume.held.push({ packet: message, deliver });
        // The message is handed over: the publisher's acknowledgement does not wait for this client's backlog.
        setImmediate(done);
        if (resume.held.length > MQTT_LIMITS.outboundWaitingMax) {
          resume.held.length = 0;
          const reasonString = `more than ${MQTT_LIMITS.outboundWaitingMax} messages arrived while the session was resumed`;
          logger.info({ deviceid: client.id, why: reasonString }, 'mqtt connection closed');
          client.disconnect({ reasonCode: REASON.QUOTA_EXCEEDED, properties: { reasonString } }, () => undefined);
        }
      });
      if (packet.protocolVersion === 5) readCleanAsPersistentWhile(client, () => resumes.has(client));
      client.once('connected', () => release(client, resume));
    },

    /** The stored queue's packets as aedes replays them at CONNECT (session-persistence.ts outgoingStream). */
    replaying(client: { id: string }, packet: SessionPacket): void {
      resumes.get(client as Client)?.replayed.add(identity(packet));
    },

    attach(aedes: Aedes): void {
      aedes.on('clientDisconnect', (client) => resumes.delete(client));
    },
  };
}
