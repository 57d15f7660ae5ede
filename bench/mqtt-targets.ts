import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { createServer, Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { BenchService } from './bench-service';

/** How a load generator logs in: a device (ClientID = deviceid, username = token) or any client of a plain broker. */
export interface MqttLogin {
  clientId: string;
  username?: string;
  password?: string;
}

/**
 * One broker under the same MQTT workloads: the service, bare aedes or Mosquitto. Topics differ only in how each
 * broker names them (devices write `@msg/...`); the work is the same.
 */
export interface MqttTarget {
  name: string;
  url: string;
  /** Logins `first` .. `first + count - 1`, each its own client. */
  logins(first: number, count: number): MqttLogin[];
  fanoutTopic: string;
  fanoutFilter: string;
  /** The topic pair `i` publishes to and its subscriber subscribes to. */
  pairTopic(i: number): string;
  close(): Promise<void>;
}

/** Bare aedes 1.x with its defaults, in this process like the service, on a free loopback port: the yardstick. */
export async function startBareAedes(): Promise<MqttTarget> {
  const broker = await Aedes.createBroker();
  const server: Server = createServer((socket) => broker.handle(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const run = Math.random().toString(36).slice(2, 8);
  return {
    name: 'bare aedes',
    url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logins: (first, count) => Array.from({ length: count }, (_, i) => ({ clientId: `bench-${run}-${first + i}` })),
    fanoutTopic: 'bench/fanout',
    fanoutFilter: 'bench/#',
    pairTopic: (i) => `pairs/${i}`,
    close: async () => {
      server.close();
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
  };
}

/** The machine's Mosquitto at 127.0.0.1:1883, anonymous, when it answers within a second; undefined otherwise. */
export async function machineMosquitto(): Promise<MqttTarget | undefined> {
  const url = 'mqtt://127.0.0.1:1883';
  const run = Math.random().toString(36).slice(2, 8);
  const answers = await new Promise<boolean>((resolve) => {
    const probe = mqtt.connect(url, { clientId: `bench-probe-${run}`, reconnectPeriod: 0, connectTimeout: 1000 });
    // The first of these settles it; ending the probe afterwards changes nothing.
    probe.once('connect', () => {
      resolve(true);
      probe.end(true);
    });
    probe.once('error', () => {
      resolve(false);
      probe.end(true);
    });
    probe.once('close', () => resolve(false));
  });
  if (!answers) return undefined;
  return {
    name: 'mosquitto',
    url,
    logins: (first, count) => Array.from({ length: count }, (_, i) => ({ clientId: `bench-${run}-${first + i}` })),
    fanoutTopic: `bench/${run}/fanout`,
    fanoutFilter: `bench/${run}/#`,
    pairTopic: (i) => `bench/${run}/pairs/${i}`,
    close: async () => undefined,
  };
}

/** The service's broker, `devices` of one group logging in as NETPIE devices do (ClientID, token, secret). */
export async function serviceTarget(service: BenchService, count: number): Promise<MqttTarget> {
  const devices = await service.provisionGroup(count);
  return {
    name: 'openpie',
    url: service.mqttUrl,
    logins: (first, n) => {
      if (first + n > devices.length) throw new Error(`only ${devices.length} devices provisioned, asked for ${first + n}`);
      return devices.slice(first, first + n).map((d) => ({ clientId: d.deviceid, username: d.token, password: d.secret }));
    },
    fanoutTopic: '@msg/bench/fanout',
    fanoutFilter: '@msg/bench/#',
    pairTopic: (i) => `@msg/pairs/${i}`,
    close: async () => undefined,
  };
}

/** Connects with mqtt.js; resolves once CONNACK accepts. */
export function connectLogin(url: string, login: MqttLogin, keepalive = 60): Promise<mqtt.MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { ...login, reconnectPeriod: 0, connectTimeout: 20_000, keepalive });
    client.once('connect', () => resolve(client));
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
  });
}
