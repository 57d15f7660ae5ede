import { IClientOptions, MqttClient } from 'mqtt';
import { TestDevice } from '../../helpers/devices';
import { connectDevice, nextMessage, sleep } from '../../helpers/mqtt';

export interface Seen {
  topic: string;
  payload: string;
  retain: boolean;
}

/**
 * What a client that subscribes now receives within `ms`: the retained messages replayed to a new subscription
 * [MQTT-3.3.1-6], with their RETAIN flag [MQTT-3.3.1-8]. It leaves with a clean DISCONNECT, so it fires no will.
 */
export async function seenBySubscriberNow(
  url: string,
  device: TestDevice,
  filters: string[],
  extra: IClientOptions = {},
  ms = 400,
): Promise<Seen[]> {
  const client = await connectDevice(url, device, extra);
  const seen: Seen[] = [];
  client.on('message', (topic, payload, packet) => seen.push({ topic, payload: payload.toString(), retain: packet.retain }));
  try {
    const granted = await client.subscribeAsync(filters, { qos: 1 });
    const refused = granted.filter((g) => g.qos >= 0x80);
    if (refused.length > 0) throw new Error(`subscriptions refused: ${refused.map((g) => g.topic).join(', ')}`);
    await sleep(ms);
  } finally {
    await client.endAsync();
  }
  return seen.sort((a, b) => a.topic.localeCompare(b.topic));
}

/** Cuts the TCP connection without DISCONNECT, as a device that loses power or Wi-Fi does: its will goes out. */
export function pullThePlug(client: { stream: { destroy(): void } }): void {
  client.stream.destroy();
}

/**
 * Subscribes `client` to `topic`, which holds a retained message, and resolves once that replay has arrived, so that
 * the next message awaited on it is a live one.
 */
export async function subscribePastRetained(client: MqttClient, topic: string): Promise<void> {
  const replay = nextMessage(client, (t) => t === topic);
  await client.subscribeAsync(topic, { qos: 1 });
  await replay;
}
