import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { Door, ServiceMetrics, Transport } from '../metrics/service-metrics';
import { ApiCallMeter, createApiCallMeter } from '../quotas/api-call-meter';
import { createMessageMeter, MessageMeter } from '../quotas/message-meter';
import { QuotaGate } from '../quotas/port';
import { FailureThrottle } from '../ratelimit/failure-throttle';
import { KeyedRateLimiter } from '../ratelimit/keyed-rate-limiter';
import { Application, reaches } from '../applications/application';
import { authenticateDevice, authenticateDeviceByToken } from './authenticate';
import { CredentialKey } from './credentials';
import { Device } from './device';
import { DeviceStore } from './port';
import { Presence } from './presence';

export interface AdmissionDeps {
  devices: DeviceStore;
  /** What device credentials are kept as (devices/credential-key.ts): the key they are checked with. */
  credentialKey: CredentialKey;
  presence: Presence;
  /** One bucket per device, shared by every door: its REST and CoAP calls and its MQTT publishes. */
  rateLimiter: KeyedRateLimiter;
  /** The projects' quotas (issue 5 §5); unlimited when absent. */
  quotas?: QuotaGate;
  /** Failed credential checks by source address and target, shared with the admin door (http/admin-auth.ts). */
  failures: FailureThrottle;
  metrics: Pick<ServiceMetrics, 'countRateLimitRefusal' | 'countAuthFailure'>;
  logger: Logger;
  now: () => number;
  /** Application keys (applications/service.ts): their check rejects INVALID_CREDENTIALS or APPLICATION_DISABLED. */
  applications?: { check(key: string, secret: string): Promise<Application> };
}

/** What an MQTT CONNECT gives: its ClientID (absent when empty: the token names the device), token and secret. */
export interface ConnectionCredentials {
  deviceid?: string;
  token: string;
  /** Empty: not checked (netpie reference §3.1: the secret is optional). */
  secret: string;
}

/**
 * The one way in for devices (issue 19): every rule a device's call, connection or message must pass, in one place,
 * the same for REST, CoAP and MQTT. Transports parse credentials and translate refusals (HTTP 429 with Retry-After,
 * CoAP 4.29, CONNACK codes, `@private/error` notices); they hold no rule of their own. Refusals are AppErrors of the
 * one error table: TOO_MANY_FAILURES (with `retryAfter`), INVALID_CREDENTIALS, DEVICE_DISABLED, DEVICE_BANNED,
 * RATE_LIMITED (with `retryAfter`), QUOTA_EXCEEDED. `source` is the caller's address, as the transport sees it.
 */
export function createAdmission({ devices, credentialKey, presence, rateLimiter, quotas, failures, metrics, logger, now, applications }: AdmissionDeps) {
  const apiCalls: ApiCallMeter | undefined = quotas && createApiCallMeter(quotas, now);
  const messages: MessageMeter | undefined = quotas && createMessageMeter(quotas, now);

  /** Takes one token of the device's bucket; the refusal when it is empty. */
  function overRate(door: Transport | 'flow', deviceid: string): AppError | undefined {
    const decision = rateLimiter.take(deviceid);
    if (decision.allowed) return undefined;
    metrics.countRateLimitRefusal(door);
    const { ratePerSecond, burst } = rateLimiter.limits;
    const what = door === 'mqtt' || door === 'flow' ? 'publishes' : 'requests';
    return new AppError(
      'RATE_LIMITED',
      `this device is over its limit of ${ratePerSecond} ${what} per second (bursts of ${burst}); retry after ${decision.retryAfterSeconds} s`,
      { retryAfter: decision.retryAfterSeconds },
    );
  }

  /**
   * Checks credentials unless `source` has failed too often against `target` (ratelimit/failure-throttle.ts); a
   * wrong credential is counted, logged with the address and the device id (never the credential) and rethrown.
   */
  async function guarded<T>(door: Door, source: string, target: string, check: () => Promise<T>): Promise<T> {
    const throttled = failures.check(source, target);
    if (throttled) {
      metrics.countAuthFailure(door, 'throttled');
      logger.info({ door, source, deviceid: target, why: throttled.why }, 'credential check refused: too many failures');
      throw new AppError('TOO_MANY_FAILURES', `too many failed credential checks from this address; retry after ${throttled.retryAfterSeconds} s`, {
        retryAfter: throttled.retryAfterSeconds,
      });
    }
    try {
      return await check();
    } catch (err) {
      if (err instanceof AppError && err.code === 'INVALID_CREDENTIALS') {
        failures.failed(source, target);
        metrics.countAuthFailure(door, 'invalid_credentials');
        logger.info({ door, source, deviceid: target, why: err.message }, 'credential check failed');
      }
      throw err;
    }
  }

  return {
    /**
     * Any credential check of another door (the data store's bearer tokens), under the same guessing limits: `check`
     * rejects with INVALID_CREDENTIALS when the credential is wrong.
     */
    guarded,

    /** A device's credentials on another door (the data store), under the same guessing limits. */
    authenticate: (door: Door, source: string, credentials: { deviceid: string; token: string }): Promise<Device> =>
      guarded(door, source, credentials.deviceid, () => authenticateDevice(devices, credentialKey, credentials.deviceid, credentials.token)),

    /**
     * A Device API call (REST, CoAP): the device's ClientID and token, then its state (enabled, not banned); the call
     * counts for its liveness TTL; then the rate limit. Resolves with the caller; rejects with the refusal.
     */
    async call(door: 'http' | 'coap', source: string, credentials: { deviceid: string; token: string }): Promise<Device> {
      const device = await guarded(door, source, credentials.deviceid, () => authenticateDevice(devices, credentialKey, credentials.deviceid, credentials.token));
      presence.touched(device.deviceid);
      const refusal = overRate(door, device.deviceid);
      if (refusal) throw refusal;
      return device;
    },

    /**
     * The API-call quota around an admitted call (quotas/api-call-meter.ts): the request charged before `serve`,
     * refused with QUOTA_EXCEEDED when spent; the reply after it.
     */
    metered<T>(caller: Device, requestBytes: number, serve: () => Promise<T>, replyBytes: () => number): Promise<T> {
      return apiCalls ? apiCalls.metered(caller.projectid, requestBytes, serve, replyBytes) : serve();
    },

    /**
     * An MQTT connection: by ClientID and token, or by the token alone; the secret when one is given; then one
     * message of the project's quota. Presence is the broker's, set once the connection is accepted.
     */
    async connection(source: string, { deviceid, token, secret }: ConnectionCredentials): Promise<Device> {
      // Without a ClientID the token alone is the target: guesses are then counted per address.
      const device = await guarded('mqtt', source, deviceid ?? '(token only)', async () => {
        const found = deviceid === undefined ? await authenticateDeviceByToken(devices, token) : await authenticateDevice(devices, credentialKey, deviceid, token);
        if (secret !== '' && !credentialKey.matches(secret, found.secret)) throw new AppError('INVALID_CREDENTIALS', 'wrong secret');
        return found;
      });
      await messages?.connect(device);
      return device;
    },

    /**
     * An application's MQTT login (NETPIE's Flow Channel, mqtt/flow-channel/): its key and secret, under the same
     * guessing limits as every credential, then one message of its project's quota, as a device's connection.
     */
    async application(source: string, key: string, secret: string): Promise<Application> {
      const app = await guarded('flow', source, key, async () => {
        if (!applications) throw new AppError('INVALID_CREDENTIALS', 'application keys are not served here');
        return applications.check(key, secret);
      });
      await messages?.connect({ projectid: app.projectid });
      return app;
    },

    /**
     * A device an application names in a `@tap/...` topic, by its id and token: checked as the device's own call
     * would be (guessing limits, enabled, not banned), then within the application's reach (its project, its groups),
     * then, for a request or a write (`charged`), one token of the device's rate-limit bucket. Not a call of the
     * device itself: its liveness is left as it is.
     */
    async onBehalf(source: string, app: Application, credentials: { deviceid: string; token: string }, charged: boolean): Promise<Device> {
      const device = await guarded('flow', source, credentials.deviceid, () => authenticateDevice(devices, credentialKey, credentials.deviceid, credentials.token));
      if (!reaches(app, device)) throw new AppError('DEVICE_OUT_OF_REACH', 'the device is outside the project or groups of this application key');
      const refusal = charged ? overRate('flow', device.deviceid) : undefined;
      if (refusal) throw refusal;
      return device;
    },

    /** One message a connected device publishes (MQTT): the rate limit, then the messages quota; never waits. */
    publish(device: Device, topic: string, bytes: number): AppError | undefined {
      return overRate('mqtt', device.deviceid) ?? messages?.publish(device, topic, bytes);
    },

    /** One subscription (MQTT): the messages quota; never waits. */
    subscribe: (device: Pick<Device, 'projectid'>): AppError | undefined => messages?.subscribe(device),

    /** A message delivered to a device (MQTT): charged to its project, never refused. */
    delivered(device: Pick<Device, 'projectid'>, externalTopic: string, bytes: number): void {
      messages?.delivered(device, externalTopic, bytes);
    },
  };
}

export type Admission = ReturnType<typeof createAdmission>;
