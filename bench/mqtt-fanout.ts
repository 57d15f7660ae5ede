import type { MqttLogin } from './mqtt-targets';
import { runInWorker } from './run-in-worker';

export interface FanoutSpec {
  mqttUrl: string;
  publisher: MqttLogin;
  /** Clients that each subscribe to `filter` (for the service, devices of the publisher's group). */
  subscribers: MqttLogin[];
  topic: string;
  filter: string;
  payloadBytes: number;
  warmupMessages: number;
  messages: number;
  /** Messages written per burst; a new burst waits until every subscriber is at most `burstsInFlight` behind. */
  burst: number;
  burstsInFlight: number;
  /** Per phase: a phase that has not delivered everything by then stops and reports what it got. */
  timeoutMs: number;
}

export interface FanoutRun {
  published: number;
  expectedDeliveries: number;
  deliveries: number;
  /** From the first publish to the last delivery. */
  seconds: number;
  deliveriesPerSecond: number;
  publishedPerSecond: number;
}

export interface FanoutReport {
  warmup: FanoutRun;
  /** Absent when the warm-up fell short. */
  measured?: FanoutRun;
}

/**
 * One publisher, N subscribers of the same group, QoS 0, run from a worker thread. Throws when a phase lost
 * messages or ran out of time: on loopback, with the publisher held back by the slowest subscriber, QoS 0 has no
 * reason to drop anything, so a shortfall is a fault, not a figure.
 */
export async function measureFanout(label: string, spec: FanoutSpec): Promise<FanoutRun> {
  const report = await runInWorker<FanoutSpec, FanoutReport>('mqtt-fanout-worker.js', spec, 2 * spec.timeoutMs + 30_000);
  const shortfall = (phase: string, run: FanoutRun) =>
    new Error(
      `${label}: ${phase} delivered ${run.deliveries} of ${run.expectedDeliveries} messages ` +
        `(${run.published} published) in ${run.seconds.toFixed(1)} s`,
    );
  if (!report.measured) throw shortfall('warm-up', report.warmup);
  if (report.measured.deliveries !== report.measured.expectedDeliveries) throw shortfall('measurement', report.measured);
  return report.measured;
}
