import { Application } from '../../applications/application';

/** An application's connection (NETPIE's Flow Channel): the key it logged in with, from where. */
export interface ApplicationConnection {
  app: Application;
  clientId: string;
  /** The connection's address, as admission counts failed checks by it. */
  source: string;
  /** Each `@tap/...` watch granted, as the application wrote it, with the internal filter it stands for. */
  watches: Map<string, string>;
}
