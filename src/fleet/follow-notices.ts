import * as t from 'io-ts';
import { isRight } from 'fp-ts/Either';
import { ChangeFeed } from '../cluster/port';
import { MessageWatch } from '../messaging/port';
import { shadowUpdatedTopic } from '../messaging/topics';
import { FleetIndex } from './fleet-index';

/** What the index reads of a `@shadow/data/updated` notice (shadows/notices.ts): the rev the write made. */
const WrittenRev = t.type({ rev: t.number });

/** `$openpie/d/+/@shadow/data/updated`: every device's shadow notices, this node's and, over the backbone, the others'. */
const [BEFORE_ID, AFTER_ID] = shadowUpdatedTopic('+').split('+');

export interface FleetNoticeDeps {
  index: FleetIndex;
  /** The broker's messages: the shadow notices of every write, whichever node made it. */
  watch: MessageWatch;
  /** Devices created, changed or deleted through this node (the registry's cache). */
  devices: { onChange(listener: (deviceid: string) => void): void };
  /** The same from the other nodes, and `all` when notices may have been missed. */
  changes: ChangeFeed;
}

/**
 * Keeps the fleet index up to date (docs/fleet-query.md "The index"): every shadow write's notice and every device
 * change, wherever made, makes the index read that device again. Resolves, once watching, with the function that stops.
 */
export async function followFleetNotices({ index, watch, devices, changes }: FleetNoticeDeps): Promise<() => Promise<void>> {
  devices.onChange((deviceid) => index.deviceChanged(deviceid));
  changes.listen((notice) => {
    if (notice === 'all') index.forgetAll();
    else if (notice.kind === 'device') index.deviceChanged(notice.key);
  });
  return watch.watch(
    shadowUpdatedTopic('+'),
    (topic, payload) => {
      const deviceid = topic.slice(BEFORE_ID.length, topic.length - AFTER_ID.length);
      let rev: number | undefined;
      try {
        const decoded = WrittenRev.decode(JSON.parse(payload.toString('utf8')));
        if (isRight(decoded)) rev = decoded.right.rev;
      } catch {
        rev = undefined;
      }
      // A notice the index cannot read still says the device changed: read it again whatever its rev.
      index.shadowWritten(deviceid, rev ?? Infinity);
    },
    // The broker closed: the service is stopping.
    () => undefined,
  );
}
