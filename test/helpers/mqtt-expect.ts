import { IClientOptions, MqttClient } from 'mqtt';
import { TestDevice } from './devices';
import { connectRaw, sleep } from './mqtt';
import { Stack } from './stack';

/**
 * Resolves when the broker closes `client`, rejects when it is still open after `ms`. Call it before the act, so a
 * close that happens at once is not missed.
 */
export function closeOf(client: MqttClient, ms = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('close', onClose);
      reject(new Error(`the connection of ${client.options.clientId} was still open after ${ms} ms`));
    }, ms);
    const onClose = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('close', onClose);
  });
}

/** The error a CONNECT is refused with (mqtt.js puts the CONNACK return code in `code`); fails when it is accepted. */
export async function refusalOf(url: string, options: IClientOptions): Promise<Error & { code?: number }> {
  let client: MqttClient;
  try {
    client = await connectRaw(url, options);
  } catch (err) {
    return err as Error & { code?: number };
  }
  await client.endAsync(true);
  throw new Error(`the broker accepted the connection of ${options.clientId}`);
}

/** The `status` GET /v2/device/status reports for `device` (1 online, 0 offline). */
export async function presenceOf(stack: Stack, device: TestDevice): Promise<number> {
  const res = await stack.http('GET', '/v2/device/status', { headers: { authorization: device.auth } });
  if (res.status !== 200) throw new Error(`GET /v2/device/status answered ${res.status} ${res.text}`);
  return res.body.status;
}

/** Polls the presence of `device` until it is `want` or `ms` have passed; returns the last status seen. */
export async function presenceBecomes(stack: Stack, device: TestDevice, want: number, ms = 2000): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await presenceOf(stack, device);
    if (status === want || Date.now() > deadline) return status;
    await sleep(25);
  }
}

/** Publishes `payload` on `@msg/{topic}` over REST as `device`; throws unless the service answers 200. */
export async function restPublish(stack: Stack, device: TestDevice, topic: string, payload: string): Promise<void> {
  const res = await stack.http('PUT', `/v2/device/message/${topic}`, { body: payload, headers: { authorization: device.auth } });
  if (res.status !== 200) throw new Error(`PUT /v2/device/message/${topic} answered ${res.status} ${res.text}`);
}
