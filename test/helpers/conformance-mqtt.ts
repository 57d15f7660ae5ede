import mqtt, { IClientOptions, IConnackPacket as ClientConnack, IPublishPacket, MqttClient } from 'mqtt';
import { generate, IConnackPacket, IConnectPacket, parser, Packet } from 'mqtt-packet';
import { connect } from 'node:net';
import { TestDevice } from './devices';
import { sleep } from './mqtt';
import { WireSession, wireSession } from './mqtt-wire';

/** Protocol levels: 4 is MQTT 3.1.1, 5 is MQTT 5. */
export type Version = 4 | 5;

/**
 * How long a test waits to be sure that something does not arrive. No packet says "nothing more", so a negative
 * assertion needs a quiet window; tests use a later message they do await instead wherever ordering allows.
 */
export const QUIET_MS = 250;

/** The CONNECT of `device` (ClientID = deviceid, username = token, no password, keep alive 60 s, clean); `extra` overrides. */
export function connectPacketOf(device: Pick<TestDevice, 'deviceid' | 'token'>, version: Version, extra: Partial<IConnectPacket> = {}): IConnectPacket {
  return {
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: version,
    clientId: device.deviceid,
    username: device.token,
    clean: true,
    keepalive: 60,
    ...extra,
  };
}

/** A hand-written session (helpers/mqtt-wire.ts) of `device`, once its CONNACK accepted it. */
export async function wiredDevice(
  port: number,
  version: Version,
  device: Pick<TestDevice, 'deviceid' | 'token'>,
  extra: Partial<IConnectPacket> = {},
): Promise<{ wire: WireSession; connack: IConnackPacket }> {
  const wire = wireSession(port, version);
  wire.send(connectPacketOf(device, version, extra));
  const connack = await wire.next('connack');
  const code = version === 5 ? connack.reasonCode : connack.returnCode;
  if (code !== 0) {
    wire.destroy();
    throw new Error(`CONNACK refused the connection with ${code}`);
  }
  return { wire, connack };
}

/** The PUBLISH packets a hand-written session has received so far. */
export const publishesOf = (wire: WireSession) => wire.received.filter((p): p is Extract<Packet, { cmd: 'publish' }> => p.cmd === 'publish');

/** Resolves once `seen` holds at least `count` items; rejects after `ms`, saying how many came. */
export async function untilCount<T>(seen: T[], count: number, ms = 3000): Promise<T[]> {
  const deadline = Date.now() + ms;
  while (seen.length < count) {
    if (Date.now() > deadline) throw new Error(`${seen.length} of ${count} expected arrived within ${ms} ms`);
    await sleep(10);
  }
  return seen;
}

/**
 * Resolves with the first item of `seen` that satisfies `pred`, once there is one; rejects after `ms`. Tests send a
 * marker after the act and wait for it: what the act caused arrives before it (messages go out in the order they were
 * accepted [MQTT-4.6.0-6], docs/mqtt.md), so no quiet window is needed.
 */
export async function untilSeen<T>(seen: T[], pred: (item: T) => boolean, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = seen.find(pred);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`not arrived within ${ms} ms (${seen.length} other items did)`);
    await sleep(10);
  }
}

/** Ends the network connection of `client` without DISCONNECT, as a device losing power would. */
export const cut = (client: MqttClient) => client.stream.destroy();

/**
 * The CONNACK an MQTT 5 CONNECT with an empty ClientID gets, with Clean Start as given. mqtt-packet refuses to write an
 * empty ClientID with Clean Start 0 (it applies MQTT 3.1.1's [MQTT-3.1.3-7], which MQTT 5 dropped), so the packet is
 * written with Clean Start 1 and the flag is cleared in its bytes. The connection is closed once the CONNACK came.
 */
export function connackOfEmptyClientId5(port: number, token: string, cleanStart: boolean): Promise<IConnackPacket> {
  const bytes = generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 5, clientId: '', username: token, clean: true, keepalive: 60 }, { protocolVersion: 5 });
  if (!cleanStart) {
    // Fixed header (1 byte + 1-4 bytes of Remaining Length), protocol name (6 bytes), protocol version: then the flags.
    let lengthBytes = 1;
    while (bytes[lengthBytes] & 0x80) lengthBytes++;
    bytes[1 + lengthBytes + 6 + 1] &= ~0x02;
  }
  const socket = connect(port, '127.0.0.1');
  const read = parser({ protocolVersion: 5 });
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => read.parse(chunk));
  return new Promise((resolve, reject) => {
    read.on('packet', (packet: Packet) => {
      if (packet.cmd !== 'connack') return;
      socket.destroy();
      resolve(packet);
    });
    socket.once('close', () => reject(new Error('the broker closed the connection without a CONNACK')));
    socket.write(bytes);
  });
}

/**
 * Connects with mqtt.js (no reconnect) and collects every PUBLISH from before the CONNACK on: a resumed session's
 * queue may follow the CONNACK in the same segment, before a listener added after `connect` would hear it.
 */
export function connectCollecting(url: string, options: IClientOptions): Promise<{ client: MqttClient; connack: ClientConnack; seen: IPublishPacket[] }> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
    const seen: IPublishPacket[] = [];
    client.on('message', (topic, _payload, packet) => seen.push({ ...packet, topic }));
    client.once('connect', (connack) => resolve({ client, connack, seen }));
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
  });
}
