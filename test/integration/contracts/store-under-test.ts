import { randomBytes, randomUUID } from 'node:crypto';
import { createCredentialKey } from '../../../src/devices/credential-key';
import { Device } from '../../../src/devices/device';
import { DeviceStore } from '../../../src/devices/port';
import { DesiredStore } from '../../../src/desired/port';
import { AppError } from '../../../src/core/errors';
import { ShadowHistory } from '../../../src/shadows/history';
import { ShadowStore } from '../../../src/shadows/port';
import { PointOutbox } from '../../../src/timeseries/port';
import { Point } from '../../../src/timeseries/point';
import { QuotaLimitStore } from '../../../src/quotas/port';
import { SchemaStore } from '../../../src/schema/port';
import { SigningKeyStore } from '../../../src/tokens/port';
import { DeliveryLog, TriggerStore } from '../../../src/triggers/port';

/** One adapter of each port a node keeps its state in, as a contract suite drives it. */
export interface Stores {
  devices: DeviceStore;
  shadows: ShadowStore & PointOutbox;
  shadowHistory: ShadowHistory;
  schemas: SchemaStore;
  desired: DesiredStore;
  triggers: TriggerStore;
  deliveries: DeliveryLog;
  quotaLimits: QuotaLimitStore;
  /** Writes a device as a release before issue 20 did: token and secret in plaintext. */
  writeAsOlderRelease(device: Device, token: string, secret: string): Promise<void>;
  /** The token and secret columns of a device's row as stored. */
  storedCredentials(deviceid: string): Promise<{ token: string; secret: string }>;
  /** A key store of its own, empty, on the same data (it holds one key, so each test takes a new one). */
  freshSigningKeys(): SigningKeyStore;
}

export interface OpenStores extends Stores {
  /** Closes and opens the same data again, as a restart of the service does; every store of `Stores` is a new one. */
  reopen(): Promise<void>;
  /** Closes and deletes everything the suite stored. */
  dispose(): Promise<void>;
  /**
   * Drops the index that finds devices by token, as a registry made before it existed would lack it (issue 17); the
   * next `reopen` must make it again, over the devices stored already.
   */
  dropTokenIndex(): Promise<void>;
}

/** Opens a fresh, empty store: a temp dir for SQLite, a random keyspace for Cassandra. */
export type OpenStoresFn = () => Promise<OpenStores>;

/** The credential key the contract suites' stores digest with. */
export const testCredentialKey = createCredentialKey(randomBytes(32));

/** The token and secret each record of `aDeviceRecord` was made from, by the record's token digest. */
const plaintexts = new Map<string, { token: string; secret: string }>();

/** The plaintext token of a record made by `aDeviceRecord` (records keep digests only). */
export const tokenOf = (d: Pick<Device, 'token'>): string => plaintexts.get(d.token)!.token;
export const secretOf = (d: Pick<Device, 'token'>): string => plaintexts.get(d.token)!.secret;

/** The record as the registry keeps it of a device with this plaintext token and secret. */
export function keptCredentials(token: string, secret = `sec-${randomUUID()}`): Pick<Device, 'token' | 'secret'> {
  const kept = { token: testCredentialKey.digest(token), secret: testCredentialKey.digest(secret) };
  plaintexts.set(kept.token, { token, secret });
  return kept;
}

/**
 * A device record with random ids; fields given win. `token` and `secret`, when given, are the plaintexts: the record
 * holds their digests, as the registry does (tokenOf gives the token back).
 */
export const aDeviceRecord = ({ token, secret, ...fields }: Partial<Device> = {}): Device => ({
  deviceid: randomUUID(),
  ...keptCredentials(token ?? `tok-${randomUUID()}`, secret ?? `sec-${randomUUID()}`),
  alias: `dev-${randomUUID().slice(0, 8)}`,
  groupid: `g-${randomUUID().slice(0, 8)}`,
  projectid: `p-${randomUUID().slice(0, 8)}`,
  enabled: true,
  banned: false,
  description: '',
  livenessttl: 0,
  created: Date.UTC(2024, 0, 1),
  ...fields,
});

export const aPointOf = (deviceid: string, attr: string, timestamp: number, value: number): Point => ({
  metric: deviceid,
  tags: { attr },
  timestamp,
  value,
});

/** The error a promise rejects with; fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

export const codeOf = (err: unknown) => (err instanceof AppError ? err.code : err);

/** Empties the outbox, as the relay would, and returns what it held in order. */
export async function drainOutbox(outbox: PointOutbox): Promise<Point[]> {
  const all: Point[] = [];
  for (;;) {
    const { points, upTo } = await outbox.peek(10_000);
    if (points.length === 0) return all;
    all.push(...points);
    await outbox.remove(upTo);
  }
}
