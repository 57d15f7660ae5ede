import { expect } from 'chai';
import { fromBackbone, toBackbone } from '../../src/adapters/backbone/backbone-properties';

describe('MQTT 5 properties on the MQTT backbone', () => {
  it('carries a message\'s properties beside the backbone\'s own, and gives back exactly the message\'s', () => {
    const message = { contentType: 'a/b', userProperties: { origin: 'forged', qos: '2', k: ['1', '2'] }, correlationData: Buffer.from('c') };

    const onWire = toBackbone(message, { origin: 'node-1', qos: '1' });

    expect(onWire.userProperties).to.deep.equal({ origin: 'node-1', qos: '1', 'm:origin': 'forged', 'm:qos': '2', 'm:k': ['1', '2'] });
    expect(fromBackbone(onWire)).to.deep.equal(message);
  });

  it('gives none back for a message that had none', () => {
    expect(fromBackbone(toBackbone(undefined, { origin: 'n', qos: '0' }))).to.equal(undefined);
  });
});
