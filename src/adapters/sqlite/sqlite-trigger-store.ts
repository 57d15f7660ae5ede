import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { StoredDelivery, StoredEventHook, TriggerList } from '../../triggers/codecs';
import { Delivery, DeliveryLog, TriggerStore } from '../../triggers/port';

const BodyRow = t.type({ body: t.string });
const HookRow = t.type({ name: t.string, body: t.string });
const DeliveryRow = t.type({ id: t.number, body: t.string });


/** Entries kept per project in the delivery log; older ones are deleted as new ones come. */
export const DELIVERIES_KEPT = 1000;

const json = (row: unknown) => JSON.parse(decodeOrThrow(BodyRow, row, 'INTERNAL').body) as unknown;

/**
 * Triggers, event hooks and the delivery log in openpie.db. The ids of the devices that have triggers are also kept in
 * memory (read at open, changed after each write; about 100 bytes a device with triggers), so that a status change of a
 * device without any, which is every connect and disconnect of most devices, asks no statement (issue 26 §4). Sound
 * because this process is the only writer of openpie.db: nodes of a cluster keep triggers in Cassandra.
 */
export function createSqliteTriggerStore(db: Database): TriggerStore & DeliveryLog {
  const holders = new Set(db.prepare<[], string>('SELECT deviceid FROM triggers').pluck().all());
  const selectTriggers = db.prepare('SELECT body FROM triggers WHERE deviceid = ?');
  const upsertTriggers = db.prepare('INSERT INTO triggers (deviceid, body) VALUES (?, ?) ON CONFLICT (deviceid) DO UPDATE SET body = excluded.body');
  const removeTriggers = db.prepare('DELETE FROM triggers WHERE deviceid = ?');
  const selectHook = db.prepare('SELECT body FROM event_hooks WHERE projectid = ? AND name = ?');
  const selectHooks = db.prepare('SELECT name, body FROM event_hooks WHERE projectid = ? ORDER BY name');
  const upsertHook = db.prepare(
    'INSERT INTO event_hooks (projectid, name, body) VALUES (?, ?, ?) ON CONFLICT (projectid, name) DO UPDATE SET body = excluded.body',
  );
  const removeHook = db.prepare('DELETE FROM event_hooks WHERE projectid = ? AND name = ?');
  const insertDelivery = db.prepare('INSERT INTO deliveries (projectid, deviceid, body) VALUES (?, ?, ?)');
  const pruneDeliveries = db.prepare(
    `DELETE FROM deliveries WHERE projectid = @projectid AND id <= (
       SELECT id FROM deliveries WHERE projectid = @projectid ORDER BY id DESC LIMIT 1 OFFSET ${DELIVERIES_KEPT})`,
  );
  const selectDeliveries = db.prepare(
    `SELECT id, body FROM deliveries WHERE projectid = @projectid AND (@deviceid IS NULL OR deviceid = @deviceid)
     ORDER BY id DESC LIMIT @limit`,
  );
  const appendDelivery = db.transaction((entry: Omit<Delivery, 'id'>) => {
    insertDelivery.run(entry.projectid, entry.deviceid, JSON.stringify(entry));
    pruneDeliveries.run({ projectid: entry.projectid });
  });

  return {
    async getTriggers(deviceid) {
      if (!holders.has(deviceid)) return undefined;
      const row = selectTriggers.get(deviceid);
      return row === undefined ? undefined : decodeOrThrow(TriggerList, json(row), 'INTERNAL');
    },
    async putTriggers(deviceid, list) {
      upsertTriggers.run(deviceid, JSON.stringify(list));
      holders.add(deviceid);
    },
    async deleteTriggers(deviceid) {
      const removed = removeTriggers.run(deviceid).changes === 1;
      holders.delete(deviceid);
      return removed;
    },
    async getHook(projectid, name) {
      const row = selectHook.get(projectid, name);
      return row === undefined ? undefined : decodeOrThrow(StoredEventHook, json(row), 'INTERNAL');
    },
    async listHooks(projectid) {
      return selectHooks.all(projectid).map((raw) => {
        const row = decodeOrThrow(HookRow, raw, 'INTERNAL');
        return { name: row.name, hook: decodeOrThrow(StoredEventHook, JSON.parse(row.body), 'INTERNAL') };
      });
    },
    async putHook(projectid, name, hook) {
      upsertHook.run(projectid, name, JSON.stringify(hook));
    },
    async deleteHook(projectid, name) {
      return removeHook.run(projectid, name).changes === 1;
    },
    async append(entry) {
      appendDelivery(entry);
    },
    async list(projectid, { deviceid, limit }) {
      return selectDeliveries.all({ projectid, deviceid: deviceid ?? null, limit }).map((raw) => {
        const row = decodeOrThrow(DeliveryRow, raw, 'INTERNAL');
        return { id: row.id, ...decodeOrThrow(StoredDelivery, JSON.parse(row.body), 'INTERNAL') };
      });
    },
  };
}
