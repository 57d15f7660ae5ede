import { expect } from 'chai';
import { AppError } from '../../src/core/errors';
import { messagePropertiesFromText } from '../../src/messaging/message-options';

const refusalOf = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('accepted');
};

describe('MQTT 5 properties of REST messages (X-MQTT-* headers)', () => {
  it('gives none when no header sets one', () => {
    expect(messagePropertiesFromText({}, Buffer.from('x'))).to.equal(undefined);
  });

  it('decodes every header into its property, repeated user properties in order, percent-encoded parts decoded', () => {
    const properties = messagePropertiesFromText(
      {
        'content-type': 'text/plain; charset=utf-8',
        'x-mqtt-user-property': ['a=1', 'b=%E0%B8%81', 'a=2', 'eq=x%3Dy'],
        'x-mqtt-message-expiry': '60',
        'x-mqtt-response-topic': '@private/answers',
        'x-mqtt-correlation-data': Buffer.from([0, 1, 2]).toString('base64'),
        'x-mqtt-payload-format': 'UTF-8',
      },
      Buffer.from('ok'),
    );
    expect(properties).to.deep.equal({
      contentType: 'text/plain; charset=utf-8',
      messageExpiryInterval: 60,
      responseTopic: '@private/answers',
      correlationData: Buffer.from([0, 1, 2]),
      payloadFormatIndicator: true,
      userProperties: { a: ['1', '2'], b: 'ก', eq: 'x=y' },
    });
  });

  it('keeps a user property named __proto__ as a plain name', () => {
    const properties = messagePropertiesFromText({ 'x-mqtt-user-property': ['__proto__=p'] }, Buffer.alloc(0));
    expect(Object.getPrototypeOf(properties?.userProperties)).to.equal(Object.prototype);
    expect(Object.entries(properties?.userProperties ?? {})).to.deep.equal([['__proto__', 'p']]);
  });

  const refused: [string, object, RegExp][] = [
    ['an expiry of 0', { 'x-mqtt-message-expiry': '0' }, /x-mqtt-message-expiry: expected whole seconds from 1 to 4294967295/],
    ['an expiry beyond four bytes', { 'x-mqtt-message-expiry': '4294967296' }, /x-mqtt-message-expiry/],
    ['bad percent-encoding', { 'x-mqtt-user-property': ['a=%E0%A4'] }, /x-mqtt-user-property\.0: expected valid percent-encoding/],
    ['an unknown payload format', { 'x-mqtt-payload-format': 'binary' }, /expected utf-8 or unspecified/],
    ['correlation data over 1 KiB', { 'x-mqtt-correlation-data': Buffer.alloc(1025).toString('base64') }, /at most 1024 bytes/],
    ['a response topic with an empty level', { 'x-mqtt-response-topic': '@msg/a//b' }, /empty level/],
  ];
  for (const [what, text, message] of refused) {
    it(`refuses ${what} with INVALID_MESSAGE_PROPERTY`, () => {
      const err = refusalOf(() => messagePropertiesFromText(text, Buffer.alloc(0)));
      expect(err.code).to.equal('INVALID_MESSAGE_PROPERTY');
      expect(err.message).to.match(message);
    });
  }
});
