import { expect } from 'chai';
import { createOutboundTopicAliases } from '../../src/mqtt/v5/topic-aliases';

const publish = (topic: string) => ({ cmd: 'publish', topic, properties: { contentType: 'x' } });

describe('outbound topic aliases (MQTT 5 §3.3.2.3.4)', () => {
  it('sends the topic with a new alias first, then the alias with an empty topic', () => {
    const aliases = createOutboundTopicAliases(4);

    const first = aliases.apply(publish('a'));
    const again = aliases.apply(publish('a'));

    expect(first).to.deep.include({ topic: 'a', properties: { contentType: 'x', topicAlias: 1 } });
    expect(again).to.deep.include({ topic: '', properties: { contentType: 'x', topicAlias: 1 } });
  });

  it('[MQTT-3.3.2-11] never uses an alias above the maximum: the least recently used one is given to a new topic, with its topic', () => {
    const aliases = createOutboundTopicAliases(2);
    aliases.apply(publish('a'));
    aliases.apply(publish('b'));
    aliases.apply(publish('a'));

    const c = aliases.apply(publish('c'));
    const b = aliases.apply(publish('b'));

    expect(c).to.deep.include({ topic: 'c', properties: { contentType: 'x', topicAlias: 2 } });
    expect(b).to.deep.include({ topic: 'b', properties: { contentType: 'x', topicAlias: 1 } });
  });

  it('leaves the packet it was given unchanged (aedes shares its properties between copies)', () => {
    const aliases = createOutboundTopicAliases(1);
    const packet = publish('a');
    aliases.apply(packet);
    aliases.apply(packet);
    expect(packet).to.deep.equal(publish('a'));
  });
});
