import { Device } from '../devices/device';
import { groupTopic, PRIVATE, privateTopic, restTopic } from './topics';
import { MessageBus } from './port';

/** Message use cases over REST (spec 4.2, 4.3). */
export function createMessagingService({ bus }: { bus: MessageBus }) {
  return {
    /** Delivered on `@msg/{topic}` to subscribers of the caller's group only. */
    async publishMessage(caller: Device, topic: string, payload: Buffer): Promise<void> {
      await bus.publish(groupTopic(caller, restTopic(topic)), payload);
    },

    /** Delivered on `@private/{topic}` to the device whose credentials were used, and to no one else (spec 4.3). */
    async publishPrivate(recipient: Device, topic: string, payload: Buffer): Promise<void> {
      await bus.publish(privateTopic(recipient.deviceid, restTopic(topic, PRIVATE)), payload);
    },
  };
}

export type MessagingService = ReturnType<typeof createMessagingService>;
