import { Device } from '../devices/device';
import { groupTopic, MSG, PRIVATE, privateTopic, restTopic } from './topics';
import { MessageBus, PublishOptions } from './port';
import { DEFAULT_PUBLISH } from './publish-options';

/** Message use cases over REST and CoAP (spec 4.2, 4.3); MQTT 5 subscribers also get the message's properties. */
export function createMessagingService({ bus }: { bus: MessageBus }) {
  return {
    /**
     * Delivered on `@msg/{topic}` to subscribers of the caller's group only. Resolves once the message is accepted as
     * `options` ask (QoS 1: queued for the group's offline persistent sessions and on every node); MQTT 5 subscribers
     * also get `options.properties`. Returns the topic as subscribers see it.
     */
    async publishMessage(caller: Device, topic: string, payload: Buffer, options: PublishOptions = DEFAULT_PUBLISH): Promise<string> {
      const rest = restTopic(topic);
      await bus.publish(groupTopic(caller, rest), payload, options);
      return `${MSG}/${rest}`;
    },

    /** Delivered on `@private/{topic}` to the device whose credentials were used, and to no one else (spec 4.3). Returns the topic as it sees it. */
    async publishPrivate(recipient: Device, topic: string, payload: Buffer, options: PublishOptions = DEFAULT_PUBLISH): Promise<string> {
      const rest = restTopic(topic, PRIVATE);
      await bus.publish(privateTopic(recipient.deviceid, rest), payload, options);
      return `${PRIVATE}/${rest}`;
    },
  };
}

export type MessagingService = ReturnType<typeof createMessagingService>;
