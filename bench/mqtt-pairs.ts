import type { MqttLogin } from './mqtt-targets';
import { runInWorker } from './run-in-worker';

export interface PairsSpec {
  mqttUrl: string;
  /** Per pair: the publisher, its subscriber and their topic. */
  pairs: { publisher: MqttLogin; subscriber: MqttLogin; topic: string }[];
  /** QoS 1 messages each publisher sends, one after the other (each waits for its PUBACK). */
  messagesPerPair: number;
  payloadBytes: number;
  timeoutMs: number;
}

export interface PairsRun {
  messages: number;
  delivered: number;
  seconds: number;
  messagesPerSecond: number;
  /** From the publish call to the delivery, in ms. */
  p50Ms: number;
  p99Ms: number;
}

/** Publisher/subscriber pairs at QoS 1, run from a worker thread; throws when a message was lost or time ran out. */
export async function measurePairs(label: string, spec: PairsSpec): Promise<PairsRun> {
  const run = await runInWorker<PairsSpec, PairsRun>('mqtt-pairs-worker.js', spec, spec.timeoutMs + 30_000);
  if (run.delivered !== run.messages) throw new Error(`${label}: ${run.delivered} of ${run.messages} QoS 1 messages delivered`);
  return run;
}
