import type { Aedes, Client } from 'aedes';
import type { Logger } from 'pino';
import { persistenceOf } from '../aedes2-patches';

/**
 * The inbound QoS 2 state of each session: the packet ids aedes stored (to recognise a resent PUBLISH) and has not
 * yet released with PUBREL. A session that starts clean (MQTT 5 [MQTT-3.1.2-4]), or ends with its connection (MQTT
 * 3.1.1 [MQTT-3.1.2-6]: a clean session's state is never reused; MQTT 5 §3.1.2.11.2: Session Expiry Interval 0), must
 * not keep it: otherwise a new QoS 2 publish that reuses a packet id is taken for a duplicate and never delivered,
 * and a client cycling through ClientIDs grows the store without bound (aedes' GHSA-p8r9-qf8w-p73r, fixed in aedes
 * 1.2.0 with aedes-persistence 11's `cleanIncoming`, missing from 2.0.0-beta.1).
 *
 * A persistence with `cleanIncoming` (aedes-persistence 11 and later) clears it all; the in-memory one of aedes 2's
 * aedes-persistence 10 has none, so the ids remembered here are deleted one by one.
 */
export interface IncomingState {
  stored(clientId: string, messageId: number): void;
  released(clientId: string, messageId: number): void;
  /** Clears the session's stored inbound QoS 2 packets; never rejects. */
  clear(client: Client): Promise<void>;
}

export function createIncomingState(aedes: () => Aedes, logger: Logger): IncomingState {
  const ids = new Map<string, Set<number>>();
  return {
    stored(clientId, messageId) {
      // A store that clears a session's packets itself needs no list of them (nor keeps one for expired sessions).
      if (typeof persistenceOf(aedes()).cleanIncoming === 'function') return;
      const set = ids.get(clientId) ?? new Set<number>();
      set.add(messageId);
      ids.set(clientId, set);
    },
    released(clientId, messageId) {
      const set = ids.get(clientId);
      if (!set) return;
      set.delete(messageId);
      if (set.size === 0) ids.delete(clientId);
    },
    async clear(client) {
      const persistence = persistenceOf(aedes());
      const known = ids.get(client.id);
      ids.delete(client.id);
      try {
        if (typeof persistence.cleanIncoming === 'function') return await persistence.cleanIncoming(client);
        // aedes-persistence 10 rejects the delete of a packet it does not hold; that is no failure here.
        await Promise.all([...(known ?? [])].map((messageId) => persistence.incomingDelPacket(client, { messageId }).catch(() => undefined)));
      } catch (err) {
        logger.warn({ deviceid: client.id, err }, 'mqtt session: inbound QoS 2 state not cleared');
      }
    },
  };
}
