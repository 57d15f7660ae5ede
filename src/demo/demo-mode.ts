import type { Logger } from 'pino';
import { Registry } from '../devices/service';
import { ShadowService } from '../shadows/service';
import { SHADOW_LIMITS } from '../shadows/limits';
import { UserTokens } from '../tokens/user-tokens';
import { demoBanner } from './demo-banner';
import { ensureDemoDevices } from './demo-devices';
import { Device } from '../devices/device';
import { backfillBatches, gapBatches, sampleReading } from './sample-readings';
import { startSampleStream } from './sample-stream';
import { connectSensor } from './sensor-connection';

/** Demo timing: a reading every 5 s; at first start, the last 24 h at one reading a minute (1440 of them). */
export const DEMO_TIMING = {
  intervalMs: 5_000,
  backfillSpanMs: 24 * 3600 * 1000,
  backfillStepMs: 60_000,
  userTokenTtlS: 86_400,
  /** Wait before the sensor tries its MQTT connection again. */
  reconnectMs: 2_000,
} as const;

export interface DemoDeps {
  registry: Registry;
  shadowService: ShadowService;
  userTokens: UserTokens;
  logger: Logger;
  /** Where people reach the HTTP API, for the printed block. */
  baseUrl: string;
  /** The service's own MQTT listener, which the sensor connects to (loopbackMqttUrl). */
  mqttUrl: string;
  /** How to get the admin token for the console, e.g. `cat ./data/admin-token` (adminLoginHint). */
  consoleLogin: string;
  /** Where the credentials block goes (stdout): never the log, which must not carry tokens. */
  print: (text: string) => void;
  now: () => number;
}

export interface DemoMode {
  /** Stops the sample stream; idempotent. */
  stop(): Promise<void>;
}

/**
 * DEMO=true (issue 6 §1, issue 13): the demo project and its two devices (made once per DATA_DIR), a day of readings
 * recorded on the first start, a fresh user token and the credentials printed, then a reading every few seconds.
 * The sensor behaves like a device: it keeps an MQTT connection to the service's own broker (so it shows online while
 * it sends) and publishes on `@shadow/data/update`; when it was away (the service stopped, an operator disabled it),
 * it writes the readings it missed once back, as a device with a buffer would. Every write is a shadow write and
 * time-series points like any device's.
 */
export async function startDemo(deps: DemoDeps): Promise<DemoMode> {
  const { registry, shadowService, userTokens, logger, now } = deps;
  const { sensor, lamp, sensorIsNew, lampIsNew } = await ensureDemoDevices(registry);
  if (lampIsNew) await shadowService.writeShadow(lamp, undefined, { data: { power: 'off', brightness: 0 } }, true);
  /** The time of the sensor's newest reading. */
  let lastReading = now();
  const fillGap = async (device: Device, after: number) => {
    const batches = after === 0
      ? backfillBatches(now(), DEMO_TIMING.backfillSpanMs, DEMO_TIMING.backfillStepMs, SHADOW_LIMITS.maxBatchItems)
      : gapBatches(after, now(), DEMO_TIMING.intervalMs, SHADOW_LIMITS.maxBatchItems);
    for (const batch of batches) await shadowService.writeBatch(device, undefined, { batch }, true);
    const items = batches.flat();
    if (items.length > 0) lastReading = items[items.length - 1].ts;
    return items.length;
  };
  // First start: the last 24 h. A later one: the time since the sensor's newest reading (the service was down).
  const since = sensorIsNew ? 0 : (await shadowService.readShadow(sensor)).timestamp;
  const filled = await fillGap(sensor, since);
  if (filled > 0) logger.info({ deviceid: sensor.deviceid, items: filled }, sensorIsNew ? 'demo: recorded the last 24 h of readings' : 'demo: filled the gap since the last start');
  const userToken = await userTokens.issue(sensor.projectid, DEMO_TIMING.userTokenTtlS);
  deps.print(demoBanner({
    baseUrl: deps.baseUrl, sensor, lamp, userToken, intervalMs: DEMO_TIMING.intervalMs, consoleLogin: deps.consoleLogin,
  }));

  const current = () => registry.getDevice(sensor.deviceid);
  const connection = connectSensor({
    url: deps.mqttUrl,
    retryMs: DEMO_TIMING.reconnectMs,
    // The token issued at this start: the registry never shows it again (a rotation by hand cuts the sensor off).
    credentials: async () => ({ clientId: sensor.deviceid, username: sensor.token }),
    // Back after a cut: first the readings missed meanwhile.
    onConnect: async () => {
      if (now() - lastReading > 2 * DEMO_TIMING.intervalMs) await fillGap(await current(), lastReading);
    },
    onError: (err) => logger.warn({ err, deviceid: sensor.deviceid }, 'demo: sensor connection failed'),
  });
  const stream = startSampleStream(
    async () => {
      const at = now();
      const sent = await connection.publish('@shadow/data/update', JSON.stringify({ data: sampleReading(at), timestamp: at }));
      if (sent) lastReading = at;
    },
    DEMO_TIMING.intervalMs,
    (err) => logger.warn({ err, deviceid: sensor.deviceid }, 'demo: sample write failed'),
  );
  logger.info({ project: sensor.projectid, intervalMs: DEMO_TIMING.intervalMs }, 'demo mode on');
  return {
    async stop() {
      await stream.stop();
      await connection.close();
    },
  };
}

/** The address of a listener bound to `host`, from this machine: a wildcard address is reached on loopback. */
export function loopbackMqttUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `mqtt://${name}:${port}`;
}

/** How people reach a server bound to `host`: a wildcard address is reached as localhost. */
export function reachableBaseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
