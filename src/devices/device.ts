/** A registered device (spec 2.1 plus the registry's own fields). Times are epoch milliseconds. */
export interface Device {
  readonly deviceid: string;
  readonly token: string;
  readonly secret: string;
  readonly alias: string;
  readonly groupid: string;
  readonly projectid: string;
  readonly enabled: boolean;
  readonly banned: boolean;
  readonly description: string;
  /** Seconds a REST call keeps a device "online"; 0 = off (netpie reference §5.10). */
  readonly livenessttl: number;
  readonly created: number;
}

