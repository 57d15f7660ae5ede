import { Application } from '../../applications/application';
import { Device } from '../../devices/device';

/** An application's connection (NETPIE's Flow Channel): the key it logged in with, from where. */
export interface ApplicationConnection {
  app: Application;
  clientId: string;
  /** The connection's address, as admission counts failed checks by it. */
  source: string;
  /** Each `@tap/...` watch held, by the filter as the application wrote it. */
  watches: Map<string, Watch>;
}

/** A `@tap/...` watch: the internal filter it stands for, and its device as it was when the watch was granted. */
export interface Watch {
  filter: string;
  device: Device;
}
