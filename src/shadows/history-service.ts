import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { AppError } from '../core/errors';
import { QuotaGate } from '../quotas/port';
import { blocksOf, SHADOW_BLOCK } from '../quotas/quota';
import { ShadowHistory } from './history';
import { cursorOf, decodeAt, decodeRevisionsQuery, RawQuery } from './history-codecs';
import { ShadowStore } from './port';
import { emptyShadow, Shadow } from './shadow';
import { resolveShadowTarget } from './target';

export interface ShadowHistoryDeps {
  /** Where the target of `alias` is found: the caller's group, as for the shadow read (spec 4.4). */
  devices: Pick<DeviceStore, 'findDevicesByAlias'>;
  shadows: ShadowStore;
  history: ShadowHistory;
  quotas?: QuotaGate;
  now: () => number;
}

export interface RevisionsPage {
  deviceid: string;
  /** Newest first. */
  revisions: Shadow[];
  /** Given back as `cursor` for the next (older) page; absent on the last one. */
  next?: string;
}

/** Reads of a shadow's past (issue 25 §3, docs/device-api.md "Shadow history"), for every transport. */
export function createShadowHistoryReads({ devices, shadows, history, quotas, now }: ShadowHistoryDeps) {
  const resolveTarget = (caller: Device, alias: string | undefined) => resolveShadowTarget(devices, caller, alias);

  /** Reads cost as the shadow read: one shadow operation per started KiB of the documents answered (netpie reference §9). */
  async function charge(target: Device, documents: readonly Shadow[]): Promise<void> {
    const bytes = documents.reduce((n, s) => n + Buffer.byteLength(JSON.stringify(s.data)), 0);
    await quotas?.spend(target.projectid, { shadowOps: blocksOf(bytes, SHADOW_BLOCK) }, now());
  }

  /**
   * The shadow in force at `at`: the current one from its `modified` on (so also one written before history was
   * kept), else the newest kept revision at or before `at`, else the empty shadow (rev 0) before the first write.
   */
  async function shadowAt(deviceid: string, at: number): Promise<Shadow> {
    const current = (await shadows.readShadow(deviceid)) ?? emptyShadow(deviceid);
    if (at >= current.modified) return current;
    const time = now();
    const kept = await history.revisionAt(deviceid, at, time);
    if (kept) return kept;
    const oldest = await history.oldestRevision(deviceid, time);
    if (oldest?.rev === 1) return emptyShadow(deviceid);
    throw new AppError('REVISION_NOT_KEPT', `no revision of the shadow is kept from ${at} ms; the oldest kept is from ${oldest?.modified ?? current.modified} ms`, {
      oldest: oldest?.modified ?? current.modified,
    });
  }

  return {
    /** `GET /shadow/data?at=`: the shadow as it was at that time, with that time's rev. */
    async readShadowAt(caller: Device, alias: string | undefined, rawAt: string): Promise<Shadow> {
      const at = decodeAt(rawAt, now());
      const target = await resolveTarget(caller, alias);
      const shadow = await shadowAt(target.deviceid, at);
      await charge(target, [shadow]);
      return shadow;
    },

    /** `GET /shadow/revisions?from=&to=&limit=&cursor=`: one page of the kept revisions, newest first. */
    async listRevisions(caller: Device, alias: string | undefined, query: RawQuery): Promise<RevisionsPage> {
      const request = decodeRevisionsQuery(query, now());
      const target = await resolveTarget(caller, alias);
      const revisions = await history.listRevisions(target.deviceid, request, now());
      await charge(target, revisions);
      const last = revisions[revisions.length - 1];
      return {
        deviceid: target.deviceid,
        revisions,
        ...(revisions.length === request.limit ? { next: cursorOf({ modified: last.modified, rev: last.rev }) } : {}),
      };
    },
  };
}

export type ShadowHistoryReads = ReturnType<typeof createShadowHistoryReads>;
