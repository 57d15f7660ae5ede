import type Database from 'better-sqlite3';
import { Readable } from 'node:stream';
import { decodeValue, encodeValue, plainPacket, queuedPacket } from '../../sessions/packet-codec';
import { NoSuchPacketError } from '../../sessions/no-such-packet';
import { SessionClient, SessionPacket, SessionQueueMethods } from '../../sessions/port';
import { SessionHolders } from './sqlite-session-holders';

interface OutgoingRow {
  seq: number;
  broker_id: string | null;
  broker_counter: number | null;
  message_id: number | null;
  packet: Buffer;
}

/** A queued packet as stored, with the packet identifier it was given when sent. */
function packetOf(row: Pick<OutgoingRow, 'message_id' | 'packet'>): SessionPacket {
  const packet = decodeValue<SessionPacket>(row.packet);
  if (row.message_id !== null) packet.messageId = row.message_id;
  return packet;
}

/**
 * The outgoing queue of each session (one row per packet, in `seq` order) and the incoming QoS 2 packets, on SQLite.
 * Every method is one transaction, so a crash leaves either all of a call or none of it.
 *
 * Matching follows aedes-persistence's in-memory reference: an update finds the first entry (in queue order) of the
 * same message (broker id and counter: the PUBLISH was sent and got its packet identifier), or else of another
 * message with that packet identifier (PUBREC turned it into a PUBREL, which replaces it) [MQTT-4.3.3].
 * `holders` learns of every client given a row here (sqlite-session-holders.ts); a client it does not name has none.
 */
export function sqliteSessionQueue(db: Database.Database, queueLimit: number, holders: SessionHolders): SessionQueueMethods {
  const insert = db.prepare(
    `INSERT INTO outgoing (client_id, broker_id, broker_counter, message_id, cmd, packet)
     VALUES (@client, @brokerId, @counter, NULL, @cmd, @packet)`,
  );
  const sizeOf = db.prepare<[string], number>('SELECT size FROM queue_sizes WHERE client_id = ?').pluck();
  const dropOldest = db.prepare(
    `DELETE FROM outgoing WHERE seq IN
       (SELECT seq FROM outgoing WHERE client_id = ? AND cmd = 'publish' ORDER BY seq LIMIT ?)`,
  );
  const countDropped = db.prepare(
    `INSERT INTO sessions (client_id, touched_at, dropped) VALUES (@client, @now, @dropped)
     ON CONFLICT (client_id) DO UPDATE SET dropped = dropped + excluded.dropped`,
  );
  const sameMessage = db.prepare<{ client: string; brokerId: string | null; counter: number | null }, OutgoingRow>(
    `SELECT seq, broker_id, broker_counter, message_id, packet FROM outgoing
     WHERE client_id = @client AND broker_id IS @brokerId AND broker_counter IS @counter ORDER BY seq LIMIT 1`,
  );
  const samePacketId = db.prepare<{ client: string; brokerId: string | null; messageId: number }, OutgoingRow>(
    `SELECT seq, broker_id, broker_counter, message_id, packet FROM outgoing
     WHERE client_id = @client AND message_id = @messageId AND broker_id IS NOT @brokerId ORDER BY seq LIMIT 1`,
  );
  const setPacketId = db.prepare('UPDATE outgoing SET message_id = ? WHERE seq = ?');
  const replace = db.prepare(
    `UPDATE outgoing SET broker_id = @brokerId, broker_counter = @counter, message_id = @messageId, cmd = @cmd,
       packet = @packet WHERE seq = @seq`,
  );
  const byPacketId = db.prepare<[string, number], OutgoingRow>(
    'SELECT seq, message_id, packet FROM outgoing WHERE client_id = ? AND message_id = ? ORDER BY seq LIMIT 1',
  );
  const remove = db.prepare('DELETE FROM outgoing WHERE seq = ?');
  const discard = db.prepare(
    `DELETE FROM outgoing WHERE client_id = ? AND broker_id IS ? AND broker_counter IS ? AND message_id IS NULL AND cmd = 'publish'`,
  );
  const queueOf = db.prepare<[string], OutgoingRow>('SELECT message_id, packet FROM outgoing WHERE client_id = ? ORDER BY seq');
  const queued = db.prepare('SELECT coalesce(sum(size), 0) FROM queue_sizes').pluck();
  const storeIncoming = db.prepare('INSERT OR REPLACE INTO incoming (client_id, message_id, packet) VALUES (?, ?, ?)');
  const getIncoming = db.prepare<[string, number], Buffer>('SELECT packet FROM incoming WHERE client_id = ? AND message_id = ?').pluck();
  const delIncoming = db.prepare('DELETE FROM incoming WHERE client_id = ? AND message_id = ?');
  const cleanIncoming = db.prepare('DELETE FROM incoming WHERE client_id = ?');
  const anyIncoming = db.prepare<[string], number>('SELECT 1 FROM incoming WHERE client_id = ? LIMIT 1').pluck();

  const enqueue = db.transaction((clientIds: string[], packet: SessionPacket): number => {
    const queuedCopy = queuedPacket(packet);
    const row = {
      brokerId: queuedCopy.brokerId ?? null,
      counter: queuedCopy.brokerCounter ?? null,
      cmd: queuedCopy.cmd,
      packet: encodeValue(queuedCopy),
    };
    let dropped = 0;
    // A client whose filters overlap gets the message once [MQTT-3.3.5-1 allows either].
    for (const client of new Set(clientIds)) {
      holders.sessions.add(client);
      insert.run({ client, ...row });
      const over = (sizeOf.get(client) ?? 0) - queueLimit;
      if (queueLimit > 0 && over > 0) {
        dropOldest.run(client, over);
        countDropped.run({ client, now: Date.now(), dropped: over });
        dropped += over;
      }
    }
    return dropped;
  });

  const update = db.transaction((clientId: string, packet: SessionPacket) => {
    // A packet without a broker id (aedes' PUBREL on PUBREC) names its entry by packet identifier only; the reference
    // would also take it for any earlier PUBREL entry without one, and so lose the second of two QoS 2 handshakes.
    const brokerId = packet.brokerId ?? null;
    const found = brokerId === null ? undefined : sameMessage.get({ client: clientId, brokerId, counter: packet.brokerCounter ?? null });
    const other =
      packet.messageId === undefined
        ? undefined
        : brokerId === null
          ? byPacketId.get(clientId, packet.messageId)
          : samePacketId.get({ client: clientId, brokerId, messageId: packet.messageId });
    if (found && (!other || found.seq < other.seq)) return void setPacketId.run(packet.messageId ?? null, found.seq);
    if (!other) throw new NoSuchPacketError();
    const plain = plainPacket(packet);
    replace.run({
      seq: other.seq,
      brokerId: plain.brokerId ?? null,
      counter: plain.brokerCounter ?? null,
      messageId: plain.messageId ?? null,
      cmd: plain.cmd ?? 'publish',
      packet: encodeValue(plain),
    });
  });

  const discardAll = db.transaction((clientIds: string[], packet: SessionPacket) => {
    for (const client of new Set(clientIds)) discard.run(client, packet.brokerId ?? null, packet.brokerCounter ?? null);
  });

  const clear = db.transaction((clientId: string, messageId: number): SessionPacket | undefined => {
    const row = byPacketId.get(clientId, messageId);
    if (!row) return undefined;
    remove.run(row.seq);
    return packetOf(row);
  });

  return {
    async outgoingEnqueue(sub, packet) {
      return enqueue([sub.clientId], packet);
    },
    async outgoingEnqueueCombi(subs, packet) {
      return subs.length === 0 ? 0 : enqueue(subs.map((s) => s.clientId), packet);
    },
    async outgoingDiscard(clientIds, packet) {
      discardAll(clientIds, packet);
    },
    async outgoingUpdate(client, packet) {
      update(client.id, packet);
    },
    async outgoingClearMessageId(client, packet) {
      return packet?.messageId === undefined ? undefined : clear(client.id, packet.messageId);
    },
    // A snapshot, as the reference takes: what is queued while it is sent reaches the client live.
    outgoingStream: (client) => Readable.from(holders.sessions.has(client.id) ? queueOf.all(client.id).map(packetOf) : []),
    async incomingStorePacket(client: SessionClient, packet) {
      const stored = { ...queuedPacket(packet), messageId: packet.messageId };
      holders.incoming.add(client.id);
      storeIncoming.run(client.id, packet.messageId, encodeValue(stored));
    },
    async incomingGetPacket(client, packet) {
      const bytes = packet.messageId === undefined ? undefined : getIncoming.get(client.id, packet.messageId);
      if (!bytes) throw new NoSuchPacketError();
      return decodeValue<SessionPacket>(bytes);
    },
    // Idempotent: two PUBRELs of one packet id (a retransmission racing the first, a take-over) both end in PUBCOMP.
    async incomingDelPacket(client, packet) {
      delIncoming.run(client.id, packet.messageId ?? -1);
    },
    async cleanIncoming(client) {
      if (!holders.incoming.has(client.id)) return;
      cleanIncoming.run(client.id);
      holders.incoming.delete(client.id);
    },
    async hasIncoming(clientId) {
      return holders.incoming.has(clientId) && anyIncoming.get(clientId) !== undefined;
    },
    async queuedMessages() {
      return queued.get() as number;
    },
  };
}
