import { MessageProperties, messagePropertiesOf } from '../../messaging/properties';

/**
 * A relayed message's MQTT 5 properties on the backbone (MQTT 5 to MQTT 5, so they ride as themselves), beside the
 * backbone's own user properties `origin` (the node that accepted it), `qos` (the QoS it reaches devices with) and,
 * with a shared session store, `broker` and `counter` (its identity in the shared queues).
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
