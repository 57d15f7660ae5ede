import mqtt, { MqttClient } from 'mqtt';

export interface SensorConnectionOptions {
  /** The service's own MQTT listener, e.g. `mqtt://127.0.0.1:1883`. */
  readonly url: string;
  /** ClientID and username (the token), read anew before each attempt: an operator may rotate the token. */
  credentials(): Promise<{ clientId: string; username: string }>;
  /** Called after each connection is made (the first one too), before anything is published on it. */
  onConnect(): Promise<void>;
  /** Wait between attempts, in ms. */
  readonly retryMs: number;
  onError(err: unknown): void;
}

export interface SensorConnection {
  /** Publishes at QoS 1 and resolves true once the broker acknowledged it; false, at once, while not connected. */
  publish(topic: string, payload: string): Promise<boolean>;
  /** Idempotent: no attempt starts after it. */
  close(): Promise<void>;
}

/**
 * The demo sensor's MQTT connection, as a real device would keep one: ClientID = deviceid, username = token, a new
 * attempt `retryMs` after every close (the broker cut it off because an operator disabled, banned, moved or
 * re-keyed the device; or it refused it meanwhile). One connection at a time: a second one with the same ClientID
 * would take the session over (docs/decisions.md).
 */
export function connectSensor(options: SensorConnectionOptions): SensorConnection {
  let client: MqttClient | undefined;
  let ready = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const scheduleRetry = () => {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void attempt();
    }, options.retryMs);
    retry.unref();
  };

  async function attempt(): Promise<void> {
    if (closed) return;
    let credentials: { clientId: string; username: string };
    try {
      credentials = await options.credentials();
    } catch (err) {
      options.onError(err);
      scheduleRetry();
      return;
    }
    if (closed) return;
    const current = mqtt.connect(options.url, { ...credentials, password: '', reconnectPeriod: 0, connectTimeout: 5_000, clean: true });
    client = current;
    current.on('connect', () => {
      options.onConnect().then(
        () => {
          ready = client === current && current.connected;
        },
        (err: unknown) => {
          options.onError(err);
          current.end(true);
        },
      );
    });
    // A refusal or a network error ends in `close`, where the next attempt is planned.
    current.on('error', () => undefined);
    current.on('close', () => {
      if (client === current) {
        ready = false;
        client = undefined;
      }
      current.end(true);
      scheduleRetry();
    });
  }

  void attempt();

  return {
    async publish(topic, payload) {
      const current = client;
      if (!ready || current === undefined) return false;
      await current.publishAsync(topic, payload, { qos: 1 });
      return true;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      ready = false;
      if (current) await current.endAsync();
    },
  };
}
