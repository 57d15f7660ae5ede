import { JsonObject } from '../core/json';
import { DesiredState } from './desired';

/** Where desired documents live, one per device, deleted with the device (docs/device-api.md "Desired state"). */
export interface DesiredStore {
  /** Undefined when the device's desired document was never written. */
  readDesired(deviceid: string): Promise<DesiredState | undefined>;
  /**
   * Stores `next` if the stored document is still at `expectedRev` (0 = none stored yet): compare-and-set, so two
   * writers never lose each other's changes. False, nothing stored, when another writer got there first.
   */
  commitDesired(next: DesiredState, expectedRev: number): Promise<boolean>;
}

/** Tells a device its delta (`@shadow/desired/delta`) wherever it is connected; never rejects. */
export interface DeltaPush {
  push(notice: DeltaNotice): Promise<void>;
}

/** The payload of `@shadow/desired/delta` (docs/mqtt.md): the delta and the revisions it was computed from. */
export interface DeltaNotice {
  deviceid: string;
  delta: JsonObject;
  /** The desired document's rev. */
  rev: number;
  /** The rev of `data` the delta was computed against. */
  datarev: number;
}
