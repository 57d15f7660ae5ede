import { Device } from './device';

export interface DeviceFilter {
  projectid?: string;
  groupid?: string;
}

/**
 * Where devices live. Adapters throw AppError('ALIAS_TAKEN') when an alias is already used in the device's group.
 * Deleting a device deletes its shadow in the same step.
 */
export interface DeviceStore {
  /**
   * Stores a new device: AppError('DEVICE_ID_TAKEN') when its id is in use, 'ALIAS_TAKEN' as above. An id freed by a
   * deletion can be used again (a device brought from NETPIE may be imported, deleted and imported again). Tokens are
   * not checked here: the registry keeps a given token unique (devices/registration.ts).
   */
  insertDevice(device: Device): Promise<void>;
  getDevice(deviceid: string): Promise<Device | undefined>;
  /** Devices of a project with that alias, at most one per group. */
  findDevicesByAlias(projectid: string, alias: string): Promise<Device[]>;
  /**
   * The device holding this token, for an MQTT CONNECT without a ClientID (mqtt/authenticate.ts). An indexed look-up
   * of the token's keyed digest, not a scan (a row an older release wrote in plaintext is found too, until the
   * credential migration is complete). Tokens are random keys or, given by an operator, kept unique by the registry
   * (registration.ts): should two records ever hold one, it names neither.
   */
  findDeviceByToken(token: string): Promise<Device | undefined>;
  /** The ids of the devices holding this token, at most two (enough to tell "none", "one" and "shared"); indexed. */
  tokenHolders(token: string): Promise<string[]>;
  listDevices(filter: DeviceFilter): Promise<Device[]>;
  /** Replaces the stored record; false when the device no longer exists. */
  replaceDevice(device: Device): Promise<boolean>;
  deleteDevice(deviceid: string): Promise<boolean>;
}

/** Where the credential migration of a store stands (issue 20 §1, docs/production.md "Rolling upgrades"). */
export interface CredentialMigrationStatus {
  readonly name: 'credential-digests';
  /** True once `complete` ran: every device's credentials are kept as digests. */
  readonly done: boolean;
  /** Devices whose token or secret an older release wrote in plaintext. */
  readonly plaintextDevices: number;
}

/**
 * The rewrite of credentials kept in plaintext by an older release as digests. New nodes accept both forms, so it
 * waits until no node of the older release is left; then `complete` (idempotent) rewrites every such row.
 */
export interface CredentialMigration {
  status(): Promise<CredentialMigrationStatus>;
  complete(): Promise<CredentialMigrationStatus & { rewritten: number }>;
}

/** Live sessions of a device on the MQTT side, so the registry can cut them off. */
export interface SessionControl {
  disconnectDevice(deviceid: string, reason: string): void;
}

/** Drops what a node keeps in memory of devices, so that their next use reads the store (devices/device-cache.ts). */
export interface DeviceCacheControl {
  forget(deviceid: string): void;
  forgetAll(): void;
}
