import { closed, intBetween } from '../core/codecs';
import { decodeOrThrow } from '../core/decode-errors';
import { AppError } from '../core/errors';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { coerceTo } from '../schema/coerce';
import { SHADOW_LIMITS } from '../shadows/limits';
import { END_OF_TIME } from '../timeseries/delete-ranges';
import { PointRelay } from '../timeseries/outbox-relay';
import { Point } from '../timeseries/point';
import { HistoryEraser, PointWriter } from '../timeseries/port';
import { expiryOf, RetentionPolicy } from '../timeseries/retention';
import { FIELD_TAG } from '../timeseries/shadow-points';
import { Attr, Datatag, DatatagList, datatagOf, DatatagToggle, PointValue } from './codecs';
import { DatatagOwner, DatatagStore } from './port';
import { compileDatatags, CompiledDatatag } from './recorded-points';

export interface DatatagDeps {
  store: DatatagStore;
  devices: Pick<DeviceStore, 'getDevice'>;
  /** Deletes points on the embedded engine or KairosDB (clear feed, delete feed, delete one point). */
  eraser: HistoryEraser;
  /** Writes an edited point; the outbox is flushed first, so an edit lands after every acknowledged write. */
  writer: PointWriter;
  relay: Pick<PointRelay, 'flush'>;
  retention?: RetentionPolicy;
  now: () => number;
}

const describeOwner = (owner: DatatagOwner) =>
  ('deviceid' in owner ? `device ${owner.deviceid}` : `group ${owner.projectid}/${owner.groupid}`);

/** A point's timestamp in a path: epoch ms, from 1970 on (at most a day ahead, as for writes: pointTime). */
const PointPath = closed({ attr: Attr, timestamp: intBetween(0, END_OF_TIME) });
const AttrPath = closed({ attr: Attr });

/**
 * Datatags (issue 23 §1, netpie reference §7.3): the admin's use cases (a device's own tags and group defaults, the
 * enable toggle, clear feed, delete feed, one point edited or deleted) and the one the shadow writes ask for.
 */
export function createDatatagService({ store, devices, eraser, writer, relay, retention, now }: DatatagDeps) {
  async function mustHaveDevice(deviceid: string): Promise<Device> {
    const device = await devices.getDevice(deviceid);
    if (!device) throw new AppError('DEVICE_NOT_FOUND', `no device with id ${deviceid}`);
    return device;
  }
  const checkOwner = async (owner: DatatagOwner) => {
    if ('deviceid' in owner) await mustHaveDevice(owner.deviceid);
  };

  /** The tags a device's writes follow: its own, else its group's default. */
  async function effectiveTags(device: Device): Promise<Datatag[]> {
    const own = await store.listDatatags({ deviceid: device.deviceid });
    return own.length > 0 ? own : store.listDatatags({ projectid: device.projectid, groupid: device.groupid });
  }

  function tagNamed(tags: readonly Datatag[], attr: string, owner: string): Datatag {
    const tag = tags.find((t) => t.attr === attr);
    if (!tag) throw new AppError('DATATAG_NOT_FOUND', `${owner} has no datatag "${attr}"`);
    return tag;
  }

  /** The device and its tag `attr` (its own or its group's), for the routes that act on points. */
  async function pointsTarget(deviceid: string, attrParam: string) {
    const { attr } = decodeOrThrow(AttrPath, { attr: attrParam }, 'INVALID_QUERY');
    const device = await mustHaveDevice(deviceid);
    return { device, tag: tagNamed(await effectiveTags(device), attr, `device ${deviceid}`) };
  }

  /** The timestamp of a point route, refused past the time a shadow write may have (shadows/write-time.ts). */
  function pointTime(attr: string, timestamp: string): number {
    const decoded = decodeOrThrow(PointPath, { attr, timestamp: Number(timestamp) }, 'INVALID_QUERY').timestamp;
    if (decoded > now() + SHADOW_LIMITS.maxFutureMs) throw new AppError('INVALID_QUERY', 'timestamp: more than 24 hours in the future');
    return decoded;
  }

  const allPointsOf = (deviceid: string, attr: string) => ({ metric: deviceid, tags: { [FIELD_TAG]: [attr] }, start: 0, end: END_OF_TIME });

  async function clearPoints(deviceid: string, attr: string): Promise<void> {
    await relay.flush();
    await eraser.deletePoints([allPointsOf(deviceid, attr)]);
  }

  return {
    async list(owner: DatatagOwner): Promise<Datatag[]> {
      await checkOwner(owner);
      return store.listDatatags(owner);
    },

    /** Replaces the owner's tags; they apply from the next write on. An empty list removes them all. */
    async replace(owner: DatatagOwner, body: unknown): Promise<Datatag[]> {
      const tags = decodeOrThrow(DatatagList, body).map(datatagOf);
      await checkOwner(owner);
      await store.replaceDatatags(owner, tags);
      return store.listDatatags(owner);
    },

    /** The enable toggle: a disabled tag records nothing and keeps its points. */
    async setEnabled(owner: DatatagOwner, attrParam: string, body: unknown): Promise<Datatag> {
      const { attr } = decodeOrThrow(AttrPath, { attr: attrParam }, 'INVALID_QUERY');
      const { enabled } = decodeOrThrow(DatatagToggle, body);
      await checkOwner(owner);
      const tag = { ...tagNamed(await store.listDatatags(owner), attr, describeOwner(owner)), enabled };
      await store.putDatatag(owner, tag);
      return tag;
    },

    /** Delete feed: the tag, and for a device the points recorded under its attr (a group's stay with its devices). */
    async remove(owner: DatatagOwner, attrParam: string): Promise<void> {
      const { attr } = decodeOrThrow(AttrPath, { attr: attrParam }, 'INVALID_QUERY');
      await checkOwner(owner);
      tagNamed(await store.listDatatags(owner), attr, describeOwner(owner));
      // The points go first: a delete of the points that fails leaves the tag, and the call can be made again.
      if ('deviceid' in owner) await clearPoints(owner.deviceid, attr);
      if (!(await store.deleteDatatag(owner, attr))) throw new AppError('DATATAG_NOT_FOUND', `${describeOwner(owner)} has no datatag "${attr}"`);
    },

    /** Clear feed: every point of the device under the tag's attr; the tag stays. */
    async clear(deviceid: string, attrParam: string): Promise<void> {
      const { device, tag } = await pointsTarget(deviceid, attrParam);
      await clearPoints(device.deviceid, tag.attr);
    },

    /** Sets the value at one timestamp (an edit, or a point added), cast to the tag's type, kept for the tag's ttl. */
    async putPoint(deviceid: string, attrParam: string, timestampParam: string, body: unknown): Promise<Point> {
      const timestamp = pointTime(attrParam, timestampParam);
      const { value: given } = decodeOrThrow(PointValue, body);
      const { device, tag } = await pointsTarget(deviceid, attrParam);
      const cast = coerceTo(tag.type, given);
      if (!cast.ok) throw new AppError('INVALID_BODY', `value: ${cast.why} (datatag "${tag.attr}" is a ${tag.type})`);
      const [compiled] = compileDatatags([tag]);
      const expiresAt = expiryOf(timestamp, compiled.ttlMs, await retention?.retentionOf(device.projectid));
      const point: Point = {
        metric: device.deviceid,
        tags: { [FIELD_TAG]: tag.attr },
        timestamp,
        value: typeof cast.value === 'boolean' ? Number(cast.value) : (cast.value as number),
        ...(expiresAt === undefined ? {} : { expiresAt }),
      };
      await relay.flush();
      await writer.writePoints([point]);
      return point;
    },

    async deletePoint(deviceid: string, attrParam: string, timestampParam: string): Promise<void> {
      const timestamp = pointTime(attrParam, timestampParam);
      const { device, tag } = await pointsTarget(deviceid, attrParam);
      await relay.flush();
      await eraser.deletePoints([{ ...allPointsOf(device.deviceid, tag.attr), start: timestamp, end: timestamp }]);
    },

    /** The tags a device's writes follow (its own, else its group's), compiled; none when it has none. */
    async datatagsFor(device: Device): Promise<CompiledDatatag[] | undefined> {
      const tags = await effectiveTags(device);
      return tags.length > 0 ? compileDatatags(tags) : undefined;
    },
  };
}

export type DatatagService = ReturnType<typeof createDatatagService>;
