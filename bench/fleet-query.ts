import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/adapters/sqlite/sqlite-database';
import { createSqliteDeviceStore } from '../src/adapters/sqlite/sqlite-device-store';
import { createSqliteFleetSource } from '../src/adapters/sqlite/sqlite-fleet-source';
import { createSqliteShadowStore } from '../src/adapters/sqlite/sqlite-shadow-store';
import { createCredentialKey } from '../src/devices/credential-key';
import { FleetQueryRequest } from '../src/fleet/codecs';
import { createFleetIndex } from '../src/fleet/fleet-index';
import { DEFAULT_FLEET_LIMITS } from '../src/fleet/limits';
import { createFleetQueries } from '../src/fleet/service';

/** One project of 100,000 devices in 100 groups (issue 25 §4: "fast at 100,000 devices"). */
const FLEET = { devices: 100_000, groups: 100, runs: 9, pages: 10 };
const FIRMWARES = ['1.9', '2.0', '2.1'];
/** The example: about 1 device in 7 matches (battery 0-99 below 20, firmware not 2.1). */
const QUERY: FleetQueryRequest = { filter: '$.battery < 20 && $.fw != "2.1"', sort: { field: 'battery' }, fields: ['battery', 'fw'], limit: 100 };

const LABEL_WIDTH = 34;

export interface FleetBench {
  rows: string[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * The fleet query over 100,000 devices of one project in the embedded store, without HTTP: the devices and their
 * shadows go straight in through the SQLite adapters (one transaction for the devices, one group commit for the
 * shadows); then the index is built (the project's first query reads it from the store), then the filter,
 * sorted and paged, runs `runs` times (median), and `pages` pages are followed with the cursor.
 */
export async function benchFleetQuery(print: (line: string) => void): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'openpie-bench-fleet-'));
  const db = openSqliteDatabase(dir);
  const shadows = createSqliteShadowStore(db);
  try {
    const devices = createSqliteDeviceStore(db, createCredentialKey(randomBytes(32)));
    const projectid = 'bench-fleet';
    print(`fleet query: storing ${FLEET.devices} devices with shadows ...`);
    const setupStarted = performance.now();
    const ids = Array.from({ length: FLEET.devices }, (_, i) => `dev-${String(i).padStart(6, '0')}`);
    db.transaction(() => {
      ids.forEach((deviceid, i) => void devices.insertDevice({
        deviceid, token: `token-${deviceid}`, secret: `secret-${deviceid}`, alias: deviceid, groupid: `g${i % FLEET.groups}`, projectid,
        enabled: true, banned: false, description: '', livenessttl: 0, created: 0,
      }));
    })();
    const now = Date.now();
    await Promise.all(ids.map((deviceid, i) => shadows.commitShadowWrite({
      shadow: { deviceid, data: { battery: (i * 37) % 100, fw: FIRMWARES[i % 3], env: { temp: 20 + (i % 15) } }, rev: 1, modified: now, timestamp: now },
      expectedRev: 0,
      points: [],
    })));
    const setupMs = performance.now() - setupStarted;

    const index = createFleetIndex({ source: createSqliteFleetSource(db), projectOf: async () => projectid });
    const fleet = createFleetQueries({ index, limits: DEFAULT_FLEET_LIMITS });
    const buildStarted = performance.now();
    await index.project(projectid);
    const buildMs = performance.now() - buildStarted;

    const times: number[] = [];
    let answer = await fleet.query(projectid, QUERY);
    for (let run = 0; run < FLEET.runs; run++) {
      const started = performance.now();
      answer = await fleet.query(projectid, QUERY);
      times.push(performance.now() - started);
    }
    const pageTimes: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < FLEET.pages; page++) {
      const started = performance.now();
      const next = await fleet.query(projectid, { ...QUERY, ...(cursor ? { cursor } : {}) });
      pageTimes.push(performance.now() - started);
      cursor = next.next;
    }
    const groupStarted = performance.now();
    await fleet.query(projectid, { ...QUERY, groupid: 'g7' });
    const groupMs = performance.now() - groupStarted;
    const perDevice = (median(times) * 1e6) / answer.scanned;
    return [
      [
        `fleet query 100k devices`.padEnd(LABEL_WIDTH),
        `${ms(median(times)).padStart(10)}  ${Math.round(answer.scanned / (median(times) / 1000)).toLocaleString('en')} devices/s`,
        `(${perDevice.toFixed(0)} ns a device; "${QUERY.filter}", sort battery, page of ${QUERY.limit} of ${answer.total} matches; ` +
          `median of ${FLEET.runs}; max ${ms(Math.max(...times))})`,
      ].join('   '),
      [
        `fleet query, paged by cursor`.padEnd(LABEL_WIDTH),
        `${ms(median(pageTimes)).padStart(10)}  a page, ${FLEET.pages} pages`,
        `one group of ${FLEET.devices / FLEET.groups}: ${ms(groupMs)}; index built in ${ms(buildMs)} (first query of the project); ` +
          `setup ${(setupMs / 1000).toFixed(1)} s, no HTTP`,
      ].join('   '),
    ];
  } finally {
    shadows.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchFleetQuery((line) => process.stdout.write(`${line}\n`)).then((rows) => rows.forEach((row) => process.stdout.write(`${row}\n`)));
}
