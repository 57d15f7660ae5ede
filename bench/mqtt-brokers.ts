import { measureConnects } from './mqtt-connects';
import { measureFanout } from './mqtt-fanout';
import { measurePairs, PairsRun } from './mqtt-pairs';
import { MqttTarget } from './mqtt-targets';

/** The yardstick's MQTT workloads (../shared/bench/mqtt-compare.mjs), with the same sizes. */
export const MQTT_WORKLOADS = {
  fanout: { subscribers: 20, warmupMessages: 2_000, messages: 20_000, burst: 200, burstsInFlight: 2, payloadBytes: 32, timeoutMs: 60_000 },
  pairs: { pairs: 50, messagesPerPair: 400, payloadBytes: 32, timeoutMs: 60_000 },
  connects: { count: 1_000, concurrency: 50, timeoutMs: 120_000 },
};

/** Logins each workload needs of a target: fan-out first, then the pairs, then the connects. */
export const MQTT_LOGINS_NEEDED =
  1 + MQTT_WORKLOADS.fanout.subscribers + 2 * MQTT_WORKLOADS.pairs.pairs + MQTT_WORKLOADS.connects.count;

export interface BrokerFigures {
  fanoutDeliveriesPerSecond?: number;
  pairs?: PairsRun;
  connectsPerSecond?: number;
  /** Workloads that failed, with why. */
  failures: string[];
}

type Workload = 'fan-out' | 'QoS 1 pairs' | 'connects';

/**
 * Runs each workload on every broker, workload by workload, `rounds` times, the order of the brokers reversed every
 * other round, and keeps each broker's best figure: on a shared machine a neighbour's burst of work can halve one
 * run, and whichever broker runs in it should not lose the comparison for that. A failing run is reported, the
 * others still run. Each target's logins: fan-out first, then the pairs, then the connects (MQTT_LOGINS_NEEDED).
 */
export async function measureBrokers(targets: MqttTarget[], print: (line: string) => void, rounds = 2): Promise<Record<string, BrokerFigures>> {
  const { fanout, pairs, connects } = MQTT_WORKLOADS;
  const results: Record<string, BrokerFigures> = Object.fromEntries(targets.map((t) => [t.name, { failures: [] }]));
  const best = (a: number | undefined, b: number) => (a === undefined ? b : Math.max(a, b));

  async function run(target: MqttTarget, workload: Workload): Promise<void> {
    const figures = results[target.name];
    const [publisher, ...subscribers] = target.logins(0, 1 + fanout.subscribers);
    const pairLogins = target.logins(1 + fanout.subscribers, 2 * pairs.pairs);
    print(`measuring mqtt ${workload} on ${target.name} ...`);
    try {
      if (workload === 'fan-out') {
        const measured = await measureFanout(`${target.name} fan-out`, {
          ...fanout,
          mqttUrl: target.url,
          publisher,
          subscribers,
          topic: target.fanoutTopic,
          filter: target.fanoutFilter,
        });
        figures.fanoutDeliveriesPerSecond = best(figures.fanoutDeliveriesPerSecond, measured.deliveriesPerSecond);
      } else if (workload === 'QoS 1 pairs') {
        const measured = await measurePairs(`${target.name} QoS 1 pairs`, {
          ...pairs,
          mqttUrl: target.url,
          pairs: Array.from({ length: pairs.pairs }, (_, i) => ({ subscriber: pairLogins[2 * i], publisher: pairLogins[2 * i + 1], topic: target.pairTopic(i) })),
        });
        const previous = figures.pairs;
        figures.pairs = previous
          ? { ...measured, messagesPerSecond: Math.max(previous.messagesPerSecond, measured.messagesPerSecond), p50Ms: Math.min(previous.p50Ms, measured.p50Ms), p99Ms: Math.min(previous.p99Ms, measured.p99Ms) }
          : measured;
      } else {
        const logins = target.logins(1 + fanout.subscribers + 2 * pairs.pairs, connects.count);
        const measured = await measureConnects({ ...connects, mqttUrl: target.url, logins });
        figures.connectsPerSecond = best(figures.connectsPerSecond, measured.connectsPerSecond);
      }
    } catch (err) {
      figures.failures.push(`${target.name} ${workload}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  for (const workload of ['fan-out', 'QoS 1 pairs', 'connects'] as const) {
    for (let round = 0; round < rounds; round++) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) await run(target, workload);
    }
  }
  return results;
}
