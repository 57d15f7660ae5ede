import { expect } from 'chai';
import { desiredDeltaTopic, deviceTopic, externalTopic, filterMatches, internalFilter, internalTopic, isDeviceFacing, restTopic, topicProblem } from '../../src/messaging/topics';

const scope = { projectid: 'p1', groupid: 'g1', deviceid: 'd1' };

describe('device topics', () => {
  it('accepts plain REST topics and refuses wildcards, empty levels and a leading @', () => {
    expect(restTopic('home/bedroom/lamp')).to.equal('home/bedroom/lamp');
    expect(() => restTopic('home/+/lamp')).to.throw(/wildcards/);
    expect(() => restTopic('home/#')).to.throw(/wildcards/);
    expect(() => restTopic('home//lamp')).to.throw(/empty level/);
    expect(() => restTopic('home/')).to.throw(/empty level/);
    expect(() => restTopic('@shadow/data/update')).to.throw(/must not start with @/);
    expect(() => restTopic('')).to.throw(/empty/);
  });

  it('reads a REST topic written with its own prefix as the topic without it, once, and refuses the other family', () => {
    expect(restTopic('@msg/home/lamp')).to.equal('home/lamp');
    expect(restTopic('@private/inbox', '@private')).to.equal('inbox');
    expect(() => restTopic('@msg/@msg/home')).to.throw(/must not start with @/);
    expect(() => restTopic('@private/inbox')).to.throw(/must not start with @/);
    expect(() => restTopic('@msg/home', '@private')).to.throw(/must not start with @/);
    expect(() => restTopic('@msg/')).to.throw(/empty/);
  });

  it('maps @shadow/desired/delta to the device\'s own notice, which no other device\'s filter reaches (issue 25 §2)', () => {
    expect(internalFilter(scope, '@shadow/desired/delta')).to.equal(desiredDeltaTopic('d1'));
    expect(externalTopic(scope, desiredDeltaTopic('d1'))).to.equal('@shadow/desired/delta');
    expect(externalTopic(scope, desiredDeltaTopic('d2'))).to.equal(undefined);
    expect(isDeviceFacing('@shadow/desired/delta')).to.equal(true);
    expect(internalFilter(scope, '@shadow/desired/#')).to.equal(undefined);
  });

  it('allows whole-level wildcards in filters only, with # last', () => {
    expect(topicProblem('home/+/door', true)).to.equal(undefined);
    expect(topicProblem('home/#', true)).to.equal(undefined);
    expect(topicProblem('home/#/door', true)).to.match(/last/);
    expect(topicProblem('home/a+', true)).to.match(/whole level/);
  });

  it('maps @msg into the group namespace and @private into the device namespace, and back', () => {
    const msg = internalTopic(scope, '@msg', 'a/b');
    const priv = internalTopic(scope, '@private', 'x');
    expect(msg.startsWith('$')).to.equal(true);
    expect(externalTopic(scope, msg)).to.equal('@msg/a/b');
    expect(externalTopic(scope, priv)).to.equal('@private/x');
  });

  it('never maps another group or device topic back for this device', () => {
    const otherGroup = internalTopic({ ...scope, groupid: 'g2' }, '@msg', 'a/b');
    const otherProject = internalTopic({ ...scope, projectid: 'p2' }, '@msg', 'a/b');
    const otherDevice = internalTopic({ ...scope, deviceid: 'd2' }, '@private', 'x');
    expect([otherGroup, otherProject, otherDevice].map((t) => externalTopic(scope, t))).to.deep.equal([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('recognises only the @msg and @private families', () => {
    expect(deviceTopic('@msg/a')).to.deep.equal({ family: '@msg', rest: 'a' });
    expect(deviceTopic('@private/#')).to.deep.equal({ family: '@private', rest: '#' });
    expect(deviceTopic('@msgx/a')).to.equal(undefined);
    expect(deviceTopic('@shadow/data/get')).to.equal(undefined);
  });
});

describe('filterMatches (MQTT wildcards, [MQTT-4.7.1])', () => {
  const cases: [string, string, boolean][] = [
    ['a/b', 'a/b', true],
    ['a/b', 'a/c', false],
    ['a/+', 'a/b', true],
    ['a/+', 'a/b/c', false],
    ['a/+/c', 'a/b/c', true],
    ['+/+', 'a/b', true],
    ['a/#', 'a/b/c', true],
    ['a/#', 'a', true],
    ['#', 'a/b', true],
    ['a/b', 'a/b/c', false],
    ['a/b/c', 'a/b', false],
    ['a/+', 'a/', true],
  ];
  for (const [filter, topic, want] of cases) {
    it(`${want ? 'matches' : 'does not match'} ${topic} with ${filter}`, () => {
      expect(filterMatches(filter, topic)).to.equal(want);
    });
  }
});
