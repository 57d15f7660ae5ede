import { JsonObject } from '../core/json';

/**
 * A device's desired document (issue 25 §2): what an operator, a user token with the `desired` grant or a device of
 * its group wants the device's `data` to be (AWS IoT's `desired`; NETPIE's `data` plays `reported`). Times are epoch ms.
 */
export interface DesiredState {
  readonly deviceid: string;
  readonly desired: JsonObject;
  /** +1 for every write; 0 for a device whose desired document was never written. Its own, apart from `data`'s. */
  readonly rev: number;
  /** Server time of the last write. */
  readonly modified: number;
}

export const emptyDesired = (deviceid: string): DesiredState => ({ deviceid, desired: {}, rev: 0, modified: 0 });
