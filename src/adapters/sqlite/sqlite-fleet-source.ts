import type { Database } from 'better-sqlite3';
import * as t from 'io-ts';
import { decodeOrThrow } from '../../core/decode-errors';
import { isJsonObject } from '../../core/json';
import { FleetEntry, FleetSource } from '../../fleet/port';

const FleetRow = t.type({
  deviceid: t.string,
  projectid: t.string,
  groupid: t.string,
  alias: t.string,
  data: t.union([t.string, t.null]),
  rev: t.union([t.number, t.null]),
  modified: t.union([t.number, t.null]),
});

const entryOf = (row: unknown): FleetEntry => {
  const r = decodeOrThrow(FleetRow, row, 'INTERNAL');
  const data: unknown = r.data === null ? {} : JSON.parse(r.data);
  return { ...r, data: isJsonObject(data) ? data : {}, rev: r.rev ?? 0, modified: r.modified ?? 0 };
};

/**
 * The fleet index's source in openpie.db: a project's devices and their shadows in one read of the two tables, about
 * seven times faster than listing the devices and reading each shadow by itself (bench/fleet-query.ts, 100,000 devices).
 */
export function createSqliteFleetSource(db: Database): FleetSource {
  const select = `SELECT d.deviceid, d.projectid, d.groupid, d.alias, s.data, s.rev, s.modified
                  FROM devices d LEFT JOIN shadows s ON s.deviceid = d.deviceid`;
  const byProject = db.prepare(`${select} WHERE d.projectid = ?`);
  const byId = db.prepare(`${select} WHERE d.deviceid = ?`);
  return {
    async loadProject(projectid) {
      return byProject.all(projectid).map(entryOf);
    },
    async loadDevice(deviceid) {
      const row = byId.get(deviceid);
      return row === undefined ? undefined : entryOf(row);
    },
  };
}
