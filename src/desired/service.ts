import type { Logger } from 'pino';
import { decodeOrThrow } from '../core/decode-errors';
import { AppError } from '../core/errors';
import { JsonObject } from '../core/json';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { QuotaGate } from '../quotas/port';
import { blocksOf, SHADOW_BLOCK } from '../quotas/quota';
import { CompiledSchema } from '../schema/apply-schema';
import { applyOptionalSchema } from '../schema/service';
import { FieldWarning } from '../schema/warnings';
import { checkConditions, RevCondition } from '../shadows/condition';
import { SHADOW_LIMITS } from '../shadows/limits';
import { applyShadowWrite } from '../shadows/merge';
import { ShadowNotice, ShadowNotices, ShadowStore } from '../shadows/port';
import { emptyShadow } from '../shadows/shadow';
import { resolveShadowTarget } from '../shadows/target';
import { CheckedDesiredStore } from './cached-desired-store';
import { DesiredWriteRequest } from './codecs';
import { computeDelta, touchesDesired } from './delta';
import { DesiredState, emptyDesired } from './desired';
import { DeltaNotice, DeltaPush } from './port';

export interface DesiredDeps {
  devices: Pick<DeviceStore, 'findDevicesByAlias'>;
  store: CheckedDesiredStore;
  /** Where `data` (the reported side) is read from, to compute the delta. */
  shadows: Pick<ShadowStore, 'readShadow'>;
  now: () => number;
  /** The schema a device's writes follow; it applies to desired writes as to data writes (issue 25 §2). */
  schemaFor?: (device: Device) => Promise<CompiledSchema | undefined>;
  quotas?: QuotaGate;
  /** `@shadow/desired/delta`; none when absent. */
  push?: DeltaPush;
  logger: Logger;
}

/** The desired document beside `data`, and what differs between them. */
export interface DesiredView {
  state: DesiredState;
  delta: JsonObject;
  /** The rev of `data` the delta was computed against. */
  datarev: number;
}

export interface DesiredWriteResult extends DesiredView {
  /** Fields the schema converted or dropped, as for a data write. */
  warnings: FieldWarning[];
}

/** Writers racing for one desired document retry on a lost compare-and-set; this many losses in a row is a server fault. */
const MAX_ATTEMPTS = 50;

/**
 * Desired state and its delta (issue 25 §2, docs/device-api.md "Desired state"), the same for every transport and
 * writer: the device itself or a device of its group (Device API), an operator (admin API), a user token with the
 * `desired` grant. The delta is pushed to the device after every desired write and after every data write that
 * names a desired member, computed on the documents as they then are; one device's pushes leave this node in order.
 */
export function createDesiredService({ devices, store, shadows, now, schemaFor, quotas, push, logger }: DesiredDeps) {
  /** The tail of each device's pushes on this node; dropped once nothing follows it. */
  const pushes = new Map<string, Promise<void>>();

  async function viewOf(state: DesiredState): Promise<DesiredView> {
    const reported = (await shadows.readShadow(state.deviceid)) ?? emptyShadow(state.deviceid);
    return { state, delta: computeDelta(state.desired, reported.data), datarev: reported.rev };
  }

  const noticeOf = ({ state, delta, datarev }: DesiredView): DeltaNotice => ({ deviceid: state.deviceid, delta, rev: state.rev, datarev });

  /** Computes and pushes the device's delta after the pushes already queued for it; never rejects. */
  function pushDelta(deviceid: string, compute: () => Promise<DeltaNotice | undefined>): Promise<void> {
    if (!push) return Promise.resolve();
    const next = (pushes.get(deviceid) ?? Promise.resolve())
      .then(compute)
      .then((notice) => (notice ? push.push(notice) : undefined))
      .catch((err: unknown) => logger.warn({ err, deviceid }, 'desired delta not pushed'));
    pushes.set(deviceid, next);
    return next.finally(() => {
      if (pushes.get(deviceid) === next) pushes.delete(deviceid);
    });
  }

  const readState = async (deviceid: string) => (await store.readDesired(deviceid)) ?? emptyDesired(deviceid);

  const service = {
    /** The target's desired document and delta. Costs one shadow operation per started KiB of the document, as a data read. */
    async readFor(target: Device): Promise<DesiredView> {
      const view = await viewOf(await readState(target.deviceid));
      await quotas?.spend(target.projectid, { shadowOps: blocksOf(Buffer.byteLength(JSON.stringify(view.state.desired)), SHADOW_BLOCK) }, now());
      return view;
    },

    /** The caller itself, or the device of its group named by `alias` (spec 4.4), as for `data`. */
    target: (caller: Device, alias: string | undefined): Promise<Device> => resolveShadowTarget(devices, caller, alias),

    /** The caller's own desired document, or that of the device of its group named by `alias`. */
    read: async (caller: Device, alias?: string): Promise<DesiredView> => service.readFor(await service.target(caller, alias)),

    /**
     * A desired write on `target`: merge (PUT's default) or overwrite (POST's), `null` deleting a member, as data
     * writes do; the schema applies, with `$$` the stored desired document. `condition` and the body's `rev` are
     * checked on the desired document's own rev. Costs one shadow operation per started KiB of `data`, charged once
     * the write is checked, before it is stored. The delta is pushed before the write is answered.
     */
    async writeTo(target: Device, body: unknown, defaultMerged: boolean, condition?: RevCondition): Promise<DesiredWriteResult> {
      const req: DesiredWriteRequest = decodeOrThrow(DesiredWriteRequest, body);
      const conditions = [...(condition ? [condition] : []), ...(req.rev !== undefined ? [{ match: [req.rev] }] : [])];
      const merged = req.merged ?? defaultMerged;
      const schema = await schemaFor?.(target);
      let charged = false;
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await readState(target.deviceid);
        checkConditions(conditions, current);
        const outcome = applyOptionalSchema(schema, req.data, current.desired);
        const next: DesiredState = { ...current, desired: applyShadowWrite(current.desired, outcome.data, merged), rev: current.rev + 1, modified: now() };
        checkSize(next.desired);
        if (!charged) {
          const shadowOps = blocksOf(Buffer.byteLength(JSON.stringify(req.data)), SHADOW_BLOCK);
          await quotas?.spend(target.projectid, { shadowOps, expressionRuns: outcome.expressionRuns }, now());
          charged = true;
        }
        if (!(await store.commitDesired(next, current.rev))) continue;
        const view = await viewOf(next);
        await pushDelta(target.deviceid, async () => noticeOf(view));
        return { ...view, warnings: outcome.warnings };
      }
      throw new Error(`desired write of ${target.deviceid}: ${MAX_ATTEMPTS} lost compare-and-sets in a row`);
    },

    /** writeTo on the caller itself or the device of its group named by `alias`. */
    write: async (caller: Device, alias: string | undefined, body: unknown, defaultMerged: boolean, condition?: RevCondition) =>
      service.writeTo(await service.target(caller, alias), body, defaultMerged, condition),

    /**
     * After an applied data write: a device with desired state hears its new delta when the write named a desired
     * member (or overwrote `data`). A device without one costs nothing but the cached check. Never rejects.
     */
    async dataWritten(notice: ShadowNotice): Promise<void> {
      const has = await store.hasDesired(notice.deviceid).catch((err: unknown) => {
        logger.warn({ err, deviceid: notice.deviceid }, 'desired state not checked after a data write');
        return false;
      });
      if (!has) return;
      await pushDelta(notice.deviceid, async () => {
        const state = await readState(notice.deviceid);
        // rev 0: the answer kept was of a device deleted since, whose id was registered again.
        if (state.rev === 0 || !touchesDesired(state.desired, notice.data, notice.merged !== false)) return undefined;
        return noticeOf(await viewOf(state));
      });
    },

    /** The device's delta when it is not empty, for a device that starts listening (retained-like); else undefined. */
    async pendingDelta(deviceid: string): Promise<DeltaNotice | undefined> {
      if (!(await store.hasDesired(deviceid))) return undefined;
      const notice = noticeOf(await viewOf(await readState(deviceid)));
      return Object.keys(notice.delta).length > 0 ? notice : undefined;
    },

    /** Pushes the pending delta (if any) after the device's other pushes: a device subscribed or connected anew. Never rejects. */
    resend: (deviceid: string): Promise<void> => pushDelta(deviceid, () => service.pendingDelta(deviceid)),
  };
  return service;
}

export type DesiredService = ReturnType<typeof createDesiredService>;

/** `notices` that also tell the desired service of every applied data write, once its own notice is handed on. */
export const withDeltaOnDataWrites = (notices: ShadowNotices, desired: Pick<DesiredService, 'dataWritten'>): ShadowNotices => ({
  ...notices,
  announce: async (notice) => {
    await notices.announce(notice);
    await desired.dataWritten(notice);
  },
});

function checkSize(desired: JsonObject): void {
  const bytes = Buffer.byteLength(JSON.stringify(desired));
  if (bytes > SHADOW_LIMITS.maxDocumentBytes) {
    throw new AppError('SHADOW_TOO_LARGE', `the desired document would be ${bytes} bytes; the limit is ${SHADOW_LIMITS.maxDocumentBytes}`);
  }
}
