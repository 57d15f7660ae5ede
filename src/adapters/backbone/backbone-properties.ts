import type { IPublishPacket } from 'mqtt';
import { RelayedMessage } from '../../messaging/port';
import { MessageProperties, messagePropertiesOf } from '../../messaging/properties';

/**
 * A relayed message's MQTT 5 properties on the backbone (MQTT 5 to MQTT 5, so they ride as themselves), beside the
 * backbone's own user properties `origin` (the node that accepted it), `qos` (the QoS it reaches devices with),
 * `broker` and `counter` (its identity in the shared queues of a shared session store) and, on a message a node hands
 * on to the other members of a share, `share` (that share's backbone filter, mqtt-share-distribution.ts).
 * The message's user properties get a prefix, so that a device's own `origin` or `qos` can never pass for the
 * backbone's: a forged `origin` would make the naming node drop the message as its own.
 */
const USER_PREFIX = 'm:';

export interface BackboneControl {
  origin: string;
  qos: string;
  /** The message's identity where it was accepted (broker id and counter), when it has one. */
  broker?: string;
  counter?: string;
  /** Set on a hand-on only: the backbone shared subscription it is for; every other subscriber ignores it. */
  share?: string;
}

export interface BackboneProperties extends MessageProperties {
  userProperties: Record<string, string | string[]>;
}

/** The properties of a backbone PUBLISH carrying `message` properties and the backbone's `control` members. */
export function toBackbone(properties: MessageProperties | undefined, control: BackboneControl): BackboneProperties {
  const userProperties: Record<string, string | string[]> = Object.fromEntries(Object.entries(control).filter(([, v]) => v !== undefined));
  for (const [name, value] of Object.entries(properties?.userProperties ?? {})) userProperties[USER_PREFIX + name] = value;
  return { ...properties, userProperties };
}

/** The message's own properties out of a backbone PUBLISH's, or undefined when it had none. */
export function fromBackbone(properties: (MessageProperties & object) | undefined): MessageProperties | undefined {
  const picked = messagePropertiesOf(properties);
  if (!picked) return undefined;
  const { userProperties: all, ...rest } = picked;
  const own = Object.entries(all ?? {}).filter(([name]) => name.startsWith(USER_PREFIX));
  const message: MessageProperties = own.length > 0 ? { ...rest, userProperties: Object.fromEntries(own.map(([n, v]) => [n.slice(USER_PREFIX.length), v])) } : rest;
  return Object.keys(message).length > 0 ? message : undefined;
}

/** The QoS a relayed message reaches devices with, from its `qos` user property; 0 when absent or odd. */
function deliveryQos(packet: IPublishPacket): 0 | 1 | 2 {
  const value = packet.properties?.userProperties?.qos;
  return value === '1' ? 1 : value === '2' ? 2 : 0;
}

/** The message's identity where it was accepted, from its `broker` and `counter` user properties, when both are sound. */
function messageIdentity(packet: IPublishPacket): RelayedMessage['id'] {
  const { broker, counter } = packet.properties?.userProperties ?? {};
  if (typeof broker !== 'string' || typeof counter !== 'string' || !/^[1-9]\d{0,15}$/.test(counter)) return undefined;
  return { broker, counter: Number(counter) };
}

/** The message a backbone PUBLISH on a message topic carries; `internalTopic` is its topic inside (backbone-topics.ts). */
export function relayedMessageOf(packet: IPublishPacket, internalTopic: string): RelayedMessage {
  return {
    topic: internalTopic,
    payload: Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
    qos: deliveryQos(packet),
    retain: packet.retain,
    properties: fromBackbone(packet.properties),
    id: messageIdentity(packet),
  };
}
