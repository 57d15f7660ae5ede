import { decodeOrThrow } from '../core/decode-errors';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { AppError } from '../core/errors';
import { JsonObject } from '../core/json';
import { QuotaGate } from '../quotas/port';
import { blocksOf, SHADOW_BLOCK } from '../quotas/quota';
import { CompiledSchema } from '../schema/apply-schema';
import { applyOptionalSchema } from '../schema/service';
import { FieldWarning, warningMembers } from '../schema/warnings';
import { BatchEnvelope, BatchItem, ShadowWriteRequest } from './codecs';
import { checkConditions, RevCondition } from './condition';
import { SHADOW_LIMITS } from './limits';
import { applyShadowWrite, combineWrites } from './merge';
import { shadowNotice } from './notices';
import { ShadowNotice, ShadowNotices, ShadowStore } from './port';
import { PointRelay } from '../timeseries/outbox-relay';
import { RetentionPolicy } from '../timeseries/retention';
import { ShadowHistory } from './history';
import { createShadowHistoryReads } from './history-service';
import { Point } from '../timeseries/point';
import { CompiledDatatag, recordedPoints, Recorded } from '../datatags/recorded-points';
import { emptyShadow, Shadow } from './shadow';
import { resolveShadowTarget } from './target';
import { resolveWriteTime } from './write-time';
import { createShadowWriteQueue, Plan } from './write-queue';

/** An applied write, as triggers see it (netpie reference §8.1: `$PREV`, `$NEW`, `$CUR`). For a batch: its newest item. */
export interface ShadowUpdate {
  device: Device;
  /** The shadow's data before the write (before the newest item, for a batch). */
  previous: JsonObject;
  /** What the write stored, after the schema: only the fields it mentioned or autofilled. */
  written: JsonObject;
  /** The shadow's data after the write. */
  current: JsonObject;
  /** Data time of the write (the newest item's, for a batch). */
  timestamp: number;
}

export interface ShadowDeps {
  devices: DeviceStore;
  shadows: ShadowStore;
  relay: PointRelay;
  now: () => number;
  /** The schema a device's writes follow (issue 5 §3); none when absent. */
  schemaFor?: (device: Device) => Promise<CompiledSchema | undefined>;
  /** Quotas (issue 5 §5); unlimited when absent. */
  quotas?: QuotaGate;
  /**
   * Told of every applied write that did not say `trigger:false`, once it is committed (issue 5 §4). Must return at
   * once and never throw: the write is done whatever happens next.
   */
  onUpdated?: (update: ShadowUpdate) => void;
  /**
   * Told of every applied write, `trigger:false` ones too, once it is committed, in the order of the shadow's `rev`
   * (`@shadow/data/updated`); none when absent.
   */
  notices?: ShadowNotices;
  /**
   * How long the points of a project's writes are kept (issue 23 §2): the project's retention, else POINT_RETENTION;
   * points are kept until deleted when absent.
   */
  retention?: RetentionPolicy;
  /** The datatags that decide a device's points (its own, else its group's, issue 23 §1); the schema's rule when absent. */
  datatagsFor?: (device: Device) => Promise<readonly CompiledDatatag[] | undefined>;
  /** The kept revisions (issue 25 §3): `readShadowAt`, `listRevisions`; the shadow store keeps them with each commit. */
  history: ShadowHistory;
}

export interface WriteResult {
  shadow: Shadow;
  /** False when the write was older than the shadow and left it unchanged. */
  applied: boolean;
  /** What the write stored (its `data` after the schema), the `$NEW` side. */
  written: JsonObject;
  /** Fields the schema converted or dropped (netpie reference §11.1). */
  warnings: FieldWarning[];
  /** What `@shadow/data/updated` said of it; absent when it was not applied. */
  notice?: ShadowNotice;
}

export interface BatchResult {
  /** The shadow's rev after the batch: not in NETPIE's reply body, transports give it as an ETag. */
  rev: number;
  deviceid: string;
  response: {
    ackid?: string | number;
    total: number;
    applied: number;
    mints: number;
    maxts: number;
    /** Only when there are any; each names its item by `index` (see warningMembers). */
    warnings?: FieldWarning[];
    warningsOmitted?: number;
  };
}

/** Shadow use cases (spec 4.4-4.6), the same for every transport. */
export function createShadowService({ devices, shadows, relay, now, schemaFor, quotas, onUpdated, notices, retention, datatagsFor, history }: ShadowDeps) {
  /** The caller itself, or the device of the caller's group named by `alias` (spec 4.4). */
  const resolveTarget = (caller: Device, alias: string | undefined): Promise<Device> => resolveShadowTarget(devices, caller, alias);

  async function read(deviceid: string): Promise<Shadow> {
    return (await shadows.readShadow(deviceid)) ?? emptyShadow(deviceid);
  }

  // Revisions are kept as long as the project's points (docs/device-api.md "Shadow history").
  const retentionOf = retention && ((projectid: string) => retention.retentionOf(projectid));
  const queue = createShadowWriteQueue({ shadows, quotas, pointsQueued: relay.flushSoon, retentionOf });

  /**
   * Plans the write on the shadow as it is and stores it with compare-and-set, together with the writes of the same
   * device that wait with it (shadows/write-queue.ts). The write's points are recorded whether or not the shadow
   * changes (back-dated writes still feed the time series, issue 3 §1), in the same atomic step; its quota charge
   * too where the quota ledger is the node's own (SQLite), else once the commit is known (quotas/service.ts). The reply does not wait for the time-series store: the points are durable in the outbox already,
   * and the data-store API drains the outbox before it answers a query, so a query still sees every acknowledged
   * write. A plan is made again on each try, since the schema's `$$` is the shadow as it is then.
   */
  function update<P extends Plan>(target: Device, at: number, plan: (current: Shadow) => P): Promise<{ current: Shadow; done: P }> {
    return queue.submit(target, at, (current) => {
      const done = plan(current);
      if (done.next) checkSize(done.next.data);
      return done;
    });
  }

  /**
   * What records the points of a device's writes (datatags/recorded-points.ts): its datatags and its project's
   * retention are read here, through their caches, since the plan that records runs synchronously in the write queue.
   */
  async function recorderFor(target: Device, schema: CompiledSchema | undefined) {
    const [datatags, retentionMs] = await Promise.all([datatagsFor?.(target), retention?.retentionOf(target.projectid)]);
    return (written: JsonObject, ts: number, tags?: Map<string, Point['tags']>): Recorded =>
      recordedPoints(target.deviceid, { datatags, schema, retentionMs }, written, ts, tags);
  }

  return {
    ...createShadowHistoryReads({ devices, shadows, history, quotas, now }),
    /** Costs one shadow operation per started KiB of the shadow read (netpie reference §9). */
    async readShadow(caller: Device, alias?: string): Promise<Shadow> {
      const target = await resolveTarget(caller, alias);
      const shadow = await read(target.deviceid);
      await quotas?.spend(target.projectid, { shadowOps: blocksOf(Buffer.byteLength(JSON.stringify(shadow.data)), SHADOW_BLOCK) }, now());
      return shadow;
    },

    /**
     * A single write; `defaultMerged` comes from the method (PUT merge, POST overwrite) unless `merged` is given.
     * Costs one shadow operation per started KiB of `data`, plus one expression run per transform evaluated.
     * `condition`: the transport's If-Match / If-None-Match; with the body's `rev`, checked on the shadow the write
     * is planned on, so in the same compare-and-set as the write (see conditionsOf). A refused one costs nothing.
     */
    async writeShadow(caller: Device, alias: string | undefined, body: unknown, defaultMerged: boolean, condition?: RevCondition): Promise<WriteResult> {
      const req: ShadowWriteRequest = decodeOrThrow(ShadowWriteRequest, body);
      const conditions = conditionsOf(condition, req.rev);
      const target = await resolveTarget(caller, alias);
      const at = now();
      const ts = resolveWriteTime(req.timestamp, at, 'INVALID_TIMESTAMP', 'timestamp');
      const merged = req.merged ?? defaultMerged;
      const schema = await schemaFor?.(target);
      const record = await recorderFor(target, schema);
      const shadowOps = blocksOf(Buffer.byteLength(JSON.stringify(req.data)), SHADOW_BLOCK);
      const { current, done } = await update(target, at, (current) => {
        checkConditions(conditions, current);
        const outcome = applyOptionalSchema(schema, req.data, current.data);
        const recorded = req.store === false ? undefined : record(outcome.data, ts);
        return {
          ...outcome,
          warnings: recorded && recorded.warnings.length > 0 ? [...outcome.warnings, ...recorded.warnings] : outcome.warnings,
          points: recorded?.points ?? [],
          amounts: { shadowOps, expressionRuns: outcome.expressionRuns },
          next: ts < current.timestamp
            ? undefined
            : { ...current, data: applyShadowWrite(current.data, outcome.data, merged), rev: current.rev + 1, modified: at, timestamp: ts },
        };
      });
      if (done.points.length > 0) await notices?.recorded?.(target.deviceid, done.points);
      if (!done.next) return { shadow: current, applied: false, written: done.data, warnings: done.warnings };
      if (req.trigger !== false) {
        onUpdated?.({ device: target, previous: current.data, written: done.data, current: done.next.data, timestamp: ts });
      }
      // Announced as soon as the write is answered for, so notices leave in the order of the writes.
      const notice = shadowNotice(done.next, done.data, merged, done.warnings);
      await notices?.announce(notice);
      return { shadow: done.next, applied: true, written: done.data, warnings: done.warnings, notice };
    },

    /**
     * A batch (spec 4.6): all items are checked before anything is stored, applied in time order, and the shadow
     * ends at the newest item unless even that is older than the shadow. One stored write, so all or nothing. The
     * schema runs for every item as if it were written alone, `$$` being the shadow as the items before left it
     * (rule 5); triggers see the newest item only (rule 6). Costs one shadow operation (spec section 8). Conditions
     * as writeShadow's, on the shadow before the batch.
     */
    async writeBatch(caller: Device, alias: string | undefined, body: unknown, defaultMerged: boolean, condition?: RevCondition): Promise<BatchResult> {
      const envelope: BatchEnvelope = decodeBatchEnvelope(body);
      const conditions = conditionsOf(condition, envelope.rev);
      const target = await resolveTarget(caller, alias);
      const at = now();
      const items = envelope.batch
        .map((raw, index) => decodeBatchItem(raw, index, at))
        .sort((a, b) => a.ts - b.ts);
      const merged = envelope.merged ?? defaultMerged;
      const schema = await schemaFor?.(target);
      const record = await recorderFor(target, schema);
      const { current, done } = await update(target, at, (current) => {
        checkConditions(conditions, current);
        let data = current.data;
        let timestamp = current.timestamp;
        let applied = 0;
        let expressionRuns = 0;
        let newest: ShadowUpdate | undefined;
        /** What the applied items wrote, as one write: `@shadow/data/updated` tells of a batch once. */
        let written: JsonObject = {};
        const points: Point[] = [];
        const tagsByPath = new Map<string, Point['tags']>();
        const warnings: FieldWarning[] = [];
        for (const item of items) {
          const outcome = applyOptionalSchema(schema, item.data, data);
          expressionRuns += outcome.expressionRuns;
          for (const w of outcome.warnings) warnings.push({ index: item.index, ...w });
          if (envelope.store !== false) {
            const recorded = record(outcome.data, item.ts, tagsByPath);
            points.push(...recorded.points);
            for (const w of recorded.warnings) warnings.push({ index: item.index, ...w });
          }
          if (item.ts < timestamp) continue;
          const previous = data;
          data = applyShadowWrite(data, outcome.data, merged);
          timestamp = item.ts;
          applied++;
          written = merged ? combineWrites(written, outcome.data) : outcome.data;
          newest = { device: target, previous, written: outcome.data, current: data, timestamp };
        }
        return {
          points,
          warnings,
          applied,
          newest,
          written,
          amounts: { shadowOps: 1, expressionRuns },
          next: applied === 0 ? undefined : { ...current, data, timestamp, rev: current.rev + 1, modified: at },
        };
      });
      if (done.points.length > 0) await notices?.recorded?.(target.deviceid, done.points);
      if (done.newest && envelope.trigger !== false) onUpdated?.(done.newest);
      if (done.next) await notices?.announce(shadowNotice(done.next, done.written, merged, done.warnings));
      return {
        rev: done.next?.rev ?? current.rev,
        deviceid: target.deviceid,
        response: {
          ...(envelope.ackid !== undefined ? { ackid: envelope.ackid } : {}),
          total: items.length,
          applied: done.applied,
          mints: items[0].ts,
          maxts: items[items.length - 1].ts,
          ...warningMembers(done.warnings),
        },
      };
    },
  };
}

export type ShadowService = ReturnType<typeof createShadowService>;

/**
 * A write's conditions: the transport's and the body's `rev`, all of which must hold. They are checked in the write's
 * plan, which the write queue makes on the shadow it then compare-and-sets (write-queue.ts): two writers expecting
 * one rev can never both succeed, on one node or many.
 */
function conditionsOf(condition: RevCondition | undefined, rev: number | undefined): RevCondition[] {
  return [...(condition ? [condition] : []), ...(rev !== undefined ? [{ match: [rev] }] : [])];
}

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

function decodeBatchItem(raw: unknown, index: number, now: number): { data: JsonObject; ts: number; index: number } {
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
    return { data: item.data, ts: resolveWriteTime(given, now, 'INVALID_BATCH_ITEM', `batch item ${index}: ts`), index };
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
