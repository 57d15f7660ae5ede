import { JsonObject } from '../core/json';

/** A device's shadow document with its metadata (netpie reference §6.1). Times are epoch milliseconds. */
export interface Shadow {
  readonly deviceid: string;
  readonly data: JsonObject;
  /** +1 for every applied write (a batch is one write); 0 for a shadow never written. */
  readonly rev: number;
  /** Server time of the last applied write. */
  readonly modified: number;
  /** Data time of the last applied write; older writes are not applied (netpie reference §3.3). */
  readonly timestamp: number;
}

export const emptyShadow = (deviceid: string): Shadow => ({ deviceid, data: {}, rev: 0, modified: 0, timestamp: 0 });
