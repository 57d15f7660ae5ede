import { decodeOrThrow } from '../decode-errors';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { AppError } from '../errors';
import { JsonObject } from '../json';
import { BatchEnvelope, BatchItem, ShadowWriteRequest } from './codecs';
import { SHADOW_LIMITS } from './limits';
import { applyShadowWrite } from './merge';
import { ShadowStore } from './port';
import { PointRelay } from '../timeseries/outbox-relay';
import { Point } from '../timeseries/point';
import { pointsOfWrite } from '../timeseries/shadow-points';
import { assertValidPoints } from '../timeseries/validate-points';
import { emptyShadow, Shadow } from './shadow';
import { resolveWriteTime } from './write-time';

export interface ShadowDeps {
  devices: DeviceStore;
  shadows: ShadowStore;
  relay: PointRelay;
  now: () => number;
}

export interface WriteResult {
  shadow: Shadow;
  /** False when the write was older than the shadow and left it unchanged. */
  applied: boolean;
}

export interface BatchResult {
  deviceid: string;
  response: { ackid?: string | number; total: number; applied: number; mints: number; maxts: number };
}

/** Concurrent writers to one shadow retry on a lost compare-and-set; this many losses in a row is a server fault. */
const MAX_CAS_ATTEMPTS = 50;

/** Shadow use cases (spec 4.4-4.6), the same for every transport. */
export function createShadowService({ devices, shadows, relay, now }: ShadowDeps) {
  /** The caller itself, or the device of the caller's group named by `alias` (spec 4.4). */
  async function resolveTarget(caller: Device, alias: string | undefined): Promise<Device> {
    if (alias === undefined || alias === caller.alias) return caller;
    const named = await devices.findDevicesByAlias(caller.projectid, alias);
    const sameGroup = named.find((d) => d.groupid === caller.groupid);
    if (sameGroup) return sameGroup;
    if (named.length > 0) throw new AppError('OTHER_GROUP', `device "${alias}" is not in your group`);
    throw new AppError('ALIAS_NOT_FOUND', `no device named "${alias}" in your group`);
  }

  async function read(deviceid: string): Promise<Shadow> {
    return (await shadows.readShadow(deviceid)) ?? emptyShadow(deviceid);
  }

  /**
   * Reads, changes and stores with compare-and-set, retrying when another writer won the race. The write's points
   * are recorded whether or not the shadow changes (back-dated writes still feed the time series, issue 3 §1), in
   * the same atomic step, and handed on to the time-series store right after.
   */
  async function update(
    deviceid: string,
    points: readonly Point[],
    change: (current: Shadow) => Shadow | undefined,
  ): Promise<WriteResult> {
    assertValidPoints(points);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await read(deviceid);
      const next = change(current);
      if (next) checkSize(next.data);
      if (await shadows.commitShadowWrite({ shadow: next, expectedRev: current.rev, points })) {
        // The reply does not wait for the time-series store: the points are durable in the outbox already, and the
        // data-store API drains the outbox before it answers a query, so a query still sees every acknowledged write.
        if (points.length > 0) void relay.flush();
        return next ? { shadow: next, applied: true } : { shadow: current, applied: false };
      }
    }
    throw new Error(`shadow ${deviceid}: too many concurrent writers`);
  }

  return {
    async readShadow(caller: Device, alias?: string): Promise<Shadow> {
      const target = await resolveTarget(caller, alias);
      return read(target.deviceid);
    },

    /** A single write; `defaultMerged` comes from the method (PUT merge, POST overwrite) unless `merged` is given. */
    async writeShadow(caller: Device, alias: string | undefined, body: unknown, defaultMerged: boolean): Promise<WriteResult> {
      const req: ShadowWriteRequest = decodeOrThrow(ShadowWriteRequest, body);
      const target = await resolveTarget(caller, alias);
      const at = now();
      const ts = resolveWriteTime(req.timestamp, at, 'INVALID_TIMESTAMP', 'timestamp');
      const merged = req.merged ?? defaultMerged;
      const points = req.store === false ? [] : pointsOfWrite(target.deviceid, req.data, ts);
      return update(target.deviceid, points, (current) =>
        ts < current.timestamp
          ? undefined
          : { ...current, data: applyShadowWrite(current.data, req.data, merged), rev: current.rev + 1, modified: at, timestamp: ts },
      );
    },

    /**
     * A batch (spec 4.6): all items are checked before anything is stored, applied in time order, and the shadow
     * ends at the newest item unless even that is older than the shadow. One stored write, so all or nothing.
     */
    async writeBatch(caller: Device, alias: string | undefined, body: unknown, defaultMerged: boolean): Promise<BatchResult> {
      const envelope: BatchEnvelope = decodeBatchEnvelope(body);
      const target = await resolveTarget(caller, alias);
      const at = now();
      const items = envelope.batch
        .map((raw, index) => decodeBatchItem(raw, index, at))
        .sort((a, b) => a.ts - b.ts);
      const merged = envelope.merged ?? defaultMerged;
      const points = envelope.store === false ? [] : items.flatMap((item) => pointsOfWrite(target.deviceid, item.data, item.ts));
      let appliedCount = 0;
      const result = await update(target.deviceid, points, (current) => {
        let data = current.data;
        let timestamp = current.timestamp;
        appliedCount = 0;
        for (const item of items) {
          if (item.ts < timestamp) continue;
          data = applyShadowWrite(data, item.data, merged);
          timestamp = item.ts;
          appliedCount++;
        }
        return appliedCount === 0 ? undefined : { ...current, data, timestamp, rev: current.rev + 1, modified: at };
      });
      if (!result.applied) appliedCount = 0;
      return {
        deviceid: target.deviceid,
        response: {
          ...(envelope.ackid !== undefined ? { ackid: envelope.ackid } : {}),
          total: items.length,
          applied: appliedCount,
          mints: items[0].ts,
          maxts: items[items.length - 1].ts,
        },
      };
    },
  };
}

export type ShadowService = ReturnType<typeof createShadowService>;

function decodeBatchEnvelope(body: unknown): BatchEnvelope {
  const envelope = decodeOrThrow(BatchEnvelope, body);
  const size = envelope.batch.length;
  if (size > SHADOW_LIMITS.maxBatchItems) {
    // The body NETPIE devices already parse (netpie reference §3.5): errcode 429 even though HTTP says 400.
    throw new AppError('BATCH_TOO_LARGE', `batch size exceeds ${SHADOW_LIMITS.maxBatchItems}`, {
      errcode: 429,
      inputsize: size,
      ...(envelope.ackid !== undefined ? { ackid: envelope.ackid } : {}),
    });
  }
  if (size === 0) throw new AppError('INVALID_BODY', 'batch: expected at least one item');
  return envelope;
}

function decodeBatchItem(raw: unknown, index: number, now: number): { data: JsonObject; ts: number } {
  let item: BatchItem;
  try {
    item = decodeOrThrow(BatchItem, raw, 'INVALID_BATCH_ITEM');
  } catch (err) {
    if (err instanceof AppError) throw new AppError('INVALID_BATCH_ITEM', `batch item ${index}: ${err.message}`, { index });
    throw err;
  }
  if (item.ts !== undefined && item.timestamp !== undefined) {
    throw new AppError('INVALID_BATCH_ITEM', `batch item ${index}: give "ts" or "timestamp", not both`, { index });
  }
  const given = item.ts ?? item.timestamp;
  if (given === undefined) throw new AppError('INVALID_BATCH_ITEM', `batch item ${index}: "ts" is required`, { index });
  try {
    return { data: item.data, ts: resolveWriteTime(given, now, 'INVALID_BATCH_ITEM', `batch item ${index}: ts`) };
  } catch (err) {
    throw err instanceof AppError ? new AppError(err.code, err.message, { index }) : err;
  }
}

function checkSize(data: JsonObject): void {
  const bytes = Buffer.byteLength(JSON.stringify(data));
  if (bytes > SHADOW_LIMITS.maxDocumentBytes) {
    throw new AppError('SHADOW_TOO_LARGE', `shadow would be ${bytes} bytes; the limit is ${SHADOW_LIMITS.maxDocumentBytes}`);
  }
}
