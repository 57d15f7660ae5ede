import type { Logger } from 'pino';
import { AppError } from '../../core/errors';
import { DeviceStore } from '../../devices/port';
import { HistoryEraser, PointRange, PointWriter } from '../port';
import { RollupDeclarations } from './declarations';
import { DirtyRanges, joined, TimeRange } from './dirty-ranges';
import { refreshDevice, RefreshDeps } from './refresh';
import { bucketStart, DAY_MS, RollupDeclaration, RollupTier, tierMetric } from './tiers';

/**
 * How often the job runs. A mark waits one run before its buckets are recomputed, so that the raw points are readable
 * (KairosDB makes points readable about a second after it took them): a point is in its tiers 2 to 4 s after it was
 * stored, plus the time of the run (docs/data-store.md "Roll-ups").
 */
export const REFRESH_EVERY_MS = 2000;
/** How far back a new declaration rolls up the history already stored (a year-long dashboard, and a margin). */
export const BACKFILL_MS = 400 * DAY_MS;

/**
 * Keeps the tiers in step with the raw points (issue 23 §3): the writer and eraser it wraps mark what changed, a job
 * recomputes the touched buckets every REFRESH_EVERY_MS from the raw points (refresh.ts), and a new declaration is
 * built over the stored history in the background. Each node tracks what it wrote or deleted itself, in memory.
 */
export interface RollupMaintainer {
  /** The engine's eraser: tier buckets wholly inside a deleted range are deleted with it, the edge buckets recomputed. */
  trackDeletes(eraser: HistoryEraser): HistoryEraser;
  /** Times of a device whose tier buckets may not match its raw points yet (a query reads those raw). */
  pending(deviceid: string): readonly TimeRange[];
  /** The tiers of a device's project, built or not (undefined: none declared). */
  declarationOfDevice(deviceid: string): Promise<{ projectid: string; declaration: RollupDeclaration } | undefined>;
  /** Builds a project's new declaration (tiers no longer declared are deleted); resolves when done. */
  rebuild(projectid: string, declaration: RollupDeclaration, dropped: readonly RollupTier[]): Promise<void>;
  /** Deletes a project's tiers after its declaration went. */
  drop(projectid: string, tiers: readonly RollupTier[]): Promise<void>;
  /** Starts the job and resumes builds left unfinished. */
  start(): void;
  close(): Promise<void>;
}

export interface RollupMaintainerDeps {
  /** Marked by the writer (trackWrites) and by the eraser this makes. */
  dirty: DirtyRanges;
  /** The engine's query side and its own (untracked) writer and eraser. */
  engine: RefreshDeps;
  declarations: RollupDeclarations;
  devices: Pick<DeviceStore, 'getDevice' | 'listDevices'>;
  logger: Logger;
  now: () => number;
}

/** From when a built declaration's tiers hold every bucket: its build starts BACKFILL_MS before it was declared. */
export const builtFrom = (declaration: RollupDeclaration): number => bucketStart(declaration.declaredAt - BACKFILL_MS, DAY_MS);

const isTierMetric = (metric: string) => metric.startsWith('$rollup/');

/** The engine's writer, marking the time of every raw point dirty once written (tier points are never marked). */
export function trackWrites(writer: PointWriter, dirty: DirtyRanges): PointWriter {
  return {
    async writePoints(points) {
      await writer.writePoints(points);
      for (const p of points) if (!isTierMetric(p.metric)) dirty.mark(p.metric, p.timestamp, p.timestamp);
    },
  };
}

export function createRollupMaintainer({ dirty, engine, declarations, devices, logger, now }: RollupMaintainerDeps): RollupMaintainer {
  /** Marked before the last run: recomputed at the next. */
  let settling = new Map<string, TimeRange[]>();
  /** Being recomputed by the run under way. */
  let refreshing = new Map<string, TimeRange[]>();
  /** Recomputed by the last run: still read raw until the next, as KairosDB shows tier points a moment later too. */
  let justWritten = new Map<string, readonly TimeRange[]>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  const builds = new Set<Promise<void>>();

  async function declarationOfDevice(deviceid: string) {
    if (isTierMetric(deviceid)) return undefined;
    const device = await devices.getDevice(deviceid);
    if (device === undefined) return undefined;
    const declaration = await declarations.declarationOf(device.projectid);
    return declaration === undefined ? undefined : { projectid: device.projectid, declaration };
  }

  async function refresh(ready: Map<string, TimeRange[]>): Promise<void> {
    const written = new Map<string, readonly TimeRange[]>();
    for (const [deviceid, ranges] of ready) {
      try {
        const declared = await declarationOfDevice(deviceid);
        if (declared !== undefined) await refreshDevice(engine, deviceid, declared.declaration.tiers, ranges);
        written.set(deviceid, ranges);
      } catch (err) {
        // A day over the read budget would fail again at every run: given up (docs/data-store.md "Roll-ups").
        if (err instanceof AppError && err.code === 'QUERY_TOO_LARGE') {
          logger.error({ err, deviceid }, 'roll-up refresh given up: too many points in a day');
          continue;
        }
        logger.warn({ err, deviceid }, 'roll-up refresh failed; retried on the next pass');
        for (const range of ranges) dirty.mark(deviceid, range.start, range.end);
      }
    }
    justWritten = written;
  }

  /** Recomputes what was marked before the last run; what was marked since waits for the next. */
  function run(): Promise<void> {
    running ??= (async () => {
      refreshing = settling;
      settling = dirty.take();
      await refresh(refreshing);
    })().finally(() => {
      refreshing = new Map();
      running = undefined;
    });
    return running;
  }

  async function deleteTiers(deviceid: string, tiers: readonly RollupTier[], ranges: readonly PointRange[]) {
    const inside: PointRange[] = [];
    for (const range of ranges) {
      // Raw series carry only `attr`: a filter on any other tag deleted nothing.
      if (Object.keys(range.tags).some((tag) => tag !== 'attr')) continue;
      for (const tier of tiers) {
        const from = bucketStart(range.start + tier.periodMs - 1, tier.periodMs);
        const to = bucketStart(range.end + 1, tier.periodMs) - 1;
        if (from <= to) inside.push({ metric: tierMetric(tier.periodMs, deviceid), tags: range.tags, start: from, end: to });
      }
      dirty.mark(deviceid, range.start, range.start);
      dirty.mark(deviceid, range.end, range.end);
    }
    if (inside.length > 0) await engine.eraser.deletePoints(inside);
  }

  /** The last build or drop of each project: the next one waits for it, so that two never write one project's tiers. */
  const lastOf = new Map<string, Promise<void>>();
  const track = (projectid: string, work: () => Promise<void>) => {
    const previous = lastOf.get(projectid) ?? Promise.resolve();
    const build: Promise<void> = previous.then(work).catch((err: unknown) => logger.warn({ err, projectid }, 'roll-up build failed')).finally(() => {
      builds.delete(build);
      if (lastOf.get(projectid) === build) lastOf.delete(projectid);
    });
    builds.add(build);
    lastOf.set(projectid, build);
    return build;
  };

  async function build(projectid: string, declaration: RollupDeclaration, dropped: readonly RollupTier[]) {
    const range = [{ start: builtFrom(declaration), end: Math.max(now(), declaration.declaredAt) + DAY_MS }];
    for (const device of await devices.listDevices({ projectid })) {
      if (closed) return;
      for (const tier of dropped) await engine.eraser.deleteMetric(tierMetric(tier.periodMs, device.deviceid));
      await refreshDevice(engine, device.deviceid, declaration.tiers, range);
    }
    await declarations.markBuilt(projectid, declaration.declaredAt);
    logger.info({ projectid }, 'roll-up tiers built');
  }

  return {
    trackDeletes: (eraser) => ({
      async deletePoints(ranges) {
        await eraser.deletePoints(ranges);
        const byDevice = new Map<string, PointRange[]>();
        for (const range of ranges) byDevice.set(range.metric, [...(byDevice.get(range.metric) ?? []), range]);
        for (const [deviceid, deviceRanges] of byDevice) {
          const declared = await declarationOfDevice(deviceid);
          if (declared !== undefined) await deleteTiers(deviceid, declared.declaration.tiers, deviceRanges);
        }
      },
      async deleteMetric(metric) {
        await eraser.deleteMetric(metric);
        const declared = await declarationOfDevice(metric);
        for (const tier of declared?.declaration.tiers ?? []) await engine.eraser.deleteMetric(tierMetric(tier.periodMs, metric));
      },
    }),
    pending: (deviceid) => joined([dirty.rangesOf(deviceid), settling.get(deviceid), refreshing.get(deviceid), justWritten.get(deviceid)]
      .flatMap((ranges) => ranges ?? [])),
    declarationOfDevice,
    rebuild: (projectid, declaration, dropped) => track(projectid, () => build(projectid, declaration, dropped)),
    drop: (projectid, tiers) => track(projectid, async () => {
      for (const device of await devices.listDevices({ projectid })) {
        for (const tier of tiers) await engine.eraser.deleteMetric(tierMetric(tier.periodMs, device.deviceid));
      }
    }),
    start() {
      timer = setInterval(() => void run(), REFRESH_EVERY_MS);
      timer.unref();
      const resume = async () => {
        for (const projectid of await declarations.listUnbuilt()) {
          const declaration = await declarations.declarationOf(projectid);
          if (declaration !== undefined && declaration.builtAt === undefined) void track(projectid, () => build(projectid, declaration, []));
        }
      };
      resume().catch((err: unknown) => logger.warn({ err }, 'roll-up builds to resume unknown'));
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
      await Promise.all([...builds]);
    },
  };
}
