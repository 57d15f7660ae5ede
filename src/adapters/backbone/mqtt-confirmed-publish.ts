import { IClientPublishOptions, MqttClient } from 'mqtt';

/** QoS 1 publishes whose callers wait for the PUBACK, and are told when it will not come. */
export interface ConfirmedPublisher {
  /** Resolves on the PUBACK; rejects with `refusal(why)` when not connected, on a negative PUBACK or on timeout. */
  publish(topic: string, payload: Buffer, opts: IClientPublishOptions): Promise<void>;
  /** Refuses every publish still waiting, e.g. when the connection drops. */
  refuseAll(why: string): void;
}

/**
 * A refused publish is taken back out of mqtt.js' store of unacknowledged packets, which mqtt.js would otherwise send
 * again after reconnecting: a caller told "not accepted" must not see the message delivered later. What the broker
 * had already read before the connection broke is beyond recall (its PUBACK was lost with the connection).
 */
export function createConfirmedPublisher(client: MqttClient, ackTimeoutMs: number, refusal: (why: string) => Error): ConfirmedPublisher {
  /** Publishes waiting for their PUBACK; each entry refuses its publish. */
  const waiting = new Set<(why: string) => void>();

  return {
    publish(topic, payload, opts) {
      if (!client.connected) return Promise.reject(refusal('not connected'));
      return new Promise((resolve, reject) => {
        let messageId: number | undefined;
        const settle = (err?: Error) => {
          if (!waiting.delete(refuse)) return;
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        };
        const acknowledged = (err?: Error) => settle(err && refusal(err.message));
        const refuse = (why: string) => {
          if (messageId !== undefined && client.outgoing[messageId]?.cb === acknowledged) client.removeOutgoingMessage(messageId);
          settle(refusal(why));
        };
        waiting.add(refuse);
        const timer = setTimeout(() => refuse(`no acknowledgement within ${ackTimeoutMs} ms`), ackTimeoutMs);
        client.publish(topic, payload, { ...opts, qos: 1 }, acknowledged);
        // The id mqtt.js just gave the packet (unless it deferred it while resending its store after a reconnect).
        messageId = client.getLastMessageId();
      });
    },

    refuseAll(why) {
      for (const refuse of [...waiting]) refuse(why);
    },
  };
}
