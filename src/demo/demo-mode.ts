import type { Logger } from 'pino';
import { Registry } from '../devices/service';
import { ShadowService } from '../shadows/service';
import { SHADOW_LIMITS } from '../shadows/limits';
import { UserTokens } from '../tokens/user-tokens';
import { demoBanner } from './demo-banner';
import { ensureDemoDevices } from './demo-devices';
import { backfillBatches, sampleReading } from './sample-readings';
import { SampleStream, startSampleStream } from './sample-stream';

/** Demo timing: a reading every 5 s; at first start, the last 24 h at one reading a minute (1440 of them). */
export const DEMO_TIMING = {
  intervalMs: 5_000,
  backfillSpanMs: 24 * 3600 * 1000,
  backfillStepMs: 60_000,
  userTokenTtlS: 86_400,
} as const;

export interface DemoDeps {
  registry: Registry;
  shadowService: ShadowService;
  userTokens: UserTokens;
  logger: Logger;
  /** Where people reach the HTTP API, for the printed block. */
  baseUrl: string;
  /** Where the credentials block goes (stdout): never the log, which must not carry tokens. */
  print: (text: string) => void;
  now: () => number;
}

export interface DemoMode {
  /** Stops the sample stream; idempotent. */
  stop(): Promise<void>;
}

/**
 * DEMO=true (issue 6 §1): the demo project and its two devices (made once per DATA_DIR), a day of readings recorded
 * on the first start, a fresh user token and the credentials printed, then a reading every few seconds. Every
 * write goes through the shadow service, so it is a shadow write and time-series points like any device's.
 */
export async function startDemo(deps: DemoDeps): Promise<DemoMode> {
  const { registry, shadowService, userTokens, logger, now } = deps;
  const { sensor, lamp, sensorIsNew, lampIsNew } = await ensureDemoDevices(registry);
  if (lampIsNew) await shadowService.writeShadow(lamp, undefined, { data: { power: 'off', brightness: 0 } }, true);
  if (sensorIsNew) {
    const batches = backfillBatches(now(), DEMO_TIMING.backfillSpanMs, DEMO_TIMING.backfillStepMs, SHADOW_LIMITS.maxBatchItems);
    for (const batch of batches) await shadowService.writeBatch(sensor, undefined, { batch }, true);
    logger.info({ deviceid: sensor.deviceid, items: batches.flat().length }, 'demo: recorded the last 24 h of readings');
  }
  const userToken = await userTokens.issue(sensor.projectid, DEMO_TIMING.userTokenTtlS);
  deps.print(demoBanner({ baseUrl: deps.baseUrl, sensor, lamp, userToken, intervalMs: DEMO_TIMING.intervalMs }));

  const stream: SampleStream = startSampleStream(
    () => shadowService.writeShadow(sensor, undefined, { data: sampleReading(now()) }, true),
    DEMO_TIMING.intervalMs,
    (err) => logger.warn({ err, deviceid: sensor.deviceid }, 'demo: sample write failed'),
  );
  logger.info({ project: sensor.projectid, intervalMs: DEMO_TIMING.intervalMs }, 'demo mode on');
  return { stop: () => stream.stop() };
}

/** How people reach a server bound to `host`: a wildcard address is reached as localhost. */
export function reachableBaseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
