import type { IncomingMessage } from 'node:http';
import { messagePropertiesFromText, MessageOptionsText } from '../messaging/message-options';
import { MessageProperties } from '../messaging/properties';

/**
 * The MQTT 5 properties a REST publish gives its message through headers (docs/mqtt.md "MQTT 5 properties of REST
 * messages"): `Content-Type` is the content type; `X-MQTT-*` set the rest. Decoded by the messaging feature; a
 * malformed header is 400 INVALID_MESSAGE_PROPERTY.
 */
export function messagePropertiesOfRequest(req: IncomingMessage, payload: Buffer): MessageProperties | undefined {
  // headersDistinct keeps repeated headers apart (Node joins them with ", " in `headers`, which would split a value
  // that holds a comma).
  const headers = req.headersDistinct;
  const one = (name: string) => headers[name]?.join(', ');
  const text: MessageOptionsText = {};
  const contentType = one('content-type');
  if (contentType) text['content-type'] = contentType;
  if (headers['x-mqtt-user-property']) text['x-mqtt-user-property'] = headers['x-mqtt-user-property'];
  for (const name of ['x-mqtt-message-expiry', 'x-mqtt-response-topic', 'x-mqtt-correlation-data', 'x-mqtt-payload-format'] as const) {
    const value = one(name);
    if (value !== undefined) text[name] = value;
  }
  return messagePropertiesFromText(text, payload);
}
