/**
 * An application key (issue 22): how an application, not a device, logs in to NETPIE's "Flow Channel" (docs/mqtt.md
 * "Applications: the Flow Channel"). `key` is public (the MQTT username); `secret` is kept as a keyed digest, as
 * device credentials are (devices/credential-key.ts), and shown once, when it is issued.
 */
export interface Application {
  /** A UUID: the MQTT username, and the start of the application's ClientIDs (`<key>-<anything>`). */
  key: string;
  name: string;
  projectid: string;
  /** The groups of the project the key may reach; empty: every group of the project. */
  groups: readonly string[];
  enabled: boolean;
  /** The kept digest of the secret. */
  secret: string;
  /** Epoch ms. */
  created: number;
}

/** What an issue or a rotation answers, once: the key and its secret in the clear. */
export interface IssuedApplication {
  application: Application;
  issued: { key: string; secret: string };
}

/** True when a device lies within the key's reach: its project, and one of its groups when it names some. */
export const reaches = (app: Pick<Application, 'projectid' | 'groups'>, device: { projectid: string; groupid: string }): boolean =>
  app.projectid === device.projectid && (app.groups.length === 0 || app.groups.includes(device.groupid));
