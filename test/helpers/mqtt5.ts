import mqtt, { IClientOptions, IConnackPacket, IDisconnectPacket, IPublishPacket, MqttClient } from 'mqtt';
import { TestDevice } from './devices';

/** MQTT 5 with mqtt.js: the device's credentials, no reconnect. */
export const v5 = (device: TestDevice, extra: IClientOptions = {}): IClientOptions => ({
  protocolVersion: 5,
  clientId: device.deviceid,
  username: device.token,
  password: '',
  reconnectPeriod: 0,
  connectTimeout: 5000,
  ...extra,
});

export interface Connected5 {
  client: MqttClient;
  connack: IConnackPacket;
}

/** Connects with MQTT 5; resolves with the client and its CONNACK, rejects when the CONNACK refuses. */
export function connect5(url: string, device: TestDevice, extra: IClientOptions = {}): Promise<Connected5> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, v5(device, extra));
    client.once('connect', (connack) => resolve({ client, connack }));
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
  });
}

/** The CONNACK an MQTT 5 CONNECT gets, accepted or refused (the client is ended either way). */
export function connackOf5(url: string, options: IClientOptions): Promise<IConnackPacket> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000, ...options });
    client.on('packetreceive', (packet) => {
      if (packet.cmd !== 'connack') return;
      client.end(true);
      resolve(packet);
    });
    client.on('error', () => undefined);
    client.once('close', () => setTimeout(() => reject(new Error('closed without a CONNACK')), 50));
  });
}

/** Resolves with the DISCONNECT the broker sends `client`; rejects when none came within `ms`. Call before the act. */
export function disconnectOf(client: MqttClient, ms = 3000): Promise<IDisconnectPacket> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no DISCONNECT from the broker in time')), ms);
    client.once('disconnect', (packet) => {
      clearTimeout(timer);
      resolve(packet);
    });
  });
}

/** The next PUBLISH matching `pred` (whole packet, properties included, a topic sent as alias resolved); rejects after `ms`. */
export function nextPublish(client: MqttClient, pred: (p: IPublishPacket) => boolean = () => true, ms = 3000): Promise<IPublishPacket> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('message', onMessage);
      reject(new Error('no message arrived in time'));
    }, ms);
    const onMessage = (topic: string, _payload: Buffer, received: IPublishPacket) => {
      const packet = { ...received, topic };
      if (!pred(packet)) return;
      clearTimeout(timer);
      client.off('message', onMessage);
      resolve(packet);
    };
    client.on('message', onMessage);
  });
}

/** Every PUBLISH the client gets from now on (a topic sent as alias resolved). */
export function publishesTo(client: MqttClient): IPublishPacket[] {
  const seen: IPublishPacket[] = [];
  client.on('message', (topic, _p, packet) => seen.push({ ...packet, topic }));
  return seen;
}

/** The acknowledgement (PUBACK or PUBCOMP/PUBREC) mqtt.js got for a publish: its reason code and properties. */
export function publishAck(client: MqttClient, topic: string, payload: string | Buffer, opts: mqtt.IClientPublishOptions) {
  return new Promise<{ reasonCode: number; reasonString?: string }>((resolve, reject) => {
    const onPacket = (packet: mqtt.Packet) => {
      if (packet.cmd !== 'puback' && packet.cmd !== 'pubrec') return;
      client.off('packetreceive', onPacket);
      resolve({ reasonCode: packet.reasonCode ?? 0, reasonString: packet.properties?.reasonString });
    };
    client.on('packetreceive', onPacket);
    client.publish(topic, payload, opts, (err) => {
      // mqtt.js fails the publish on a failed acknowledgement; the packet listener has it already.
      if (err && !('code' in err)) reject(err);
    });
  });
}
