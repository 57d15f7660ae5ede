import { JsonObject } from '../core/json';

/** One device as the fleet query sees it: its registry record's place and names, and its shadow. */
export interface FleetEntry {
  readonly deviceid: string;
  readonly projectid: string;
  readonly groupid: string;
  readonly alias: string;
  /** The shadow's data; `{}` for a shadow never written. */
  readonly data: JsonObject;
  /** The shadow's rev: 0 for a shadow never written. */
  readonly rev: number;
  /** Server time of the shadow's last write (epoch ms); 0 for none. */
  readonly modified: number;
}

/** Where the fleet index reads what it holds: the store of devices and shadows, whichever it is. */
export interface FleetSource {
  /** Every device of the project with its shadow. */
  loadProject(projectid: string): Promise<FleetEntry[]>;
  /** One device with its shadow; undefined when the device is gone. */
  loadDevice(deviceid: string): Promise<FleetEntry | undefined>;
}
