import { expect } from 'chai';
import { applicationTopic, feedUpdatedTopic, groupTopic, applicationPrivateTopic, privateTopic, shadowUpdatedTopic, statusChangedTopic } from '../../src/messaging/topics';
import { parseTap, redacted, TAP_REQUESTS, TAP_WATCHES } from '../../src/mqtt/flow-channel/tap-topics';

const ID = '4f1c0e0a-1b2c-4d5e-8f90-0123456789ab';

describe('@tap/... topics (NETPIE Flow Channel, as its Node-RED nodes write them)', () => {
  it('reads the device id, its token and the message topic of each request form', () => {
    expect(parseTap(`@tap/shadow/get/${ID}:tok`, TAP_REQUESTS)).to.deep.equal({ kind: 'shadow/get', deviceid: ID, token: 'tok', rest: '' });
    expect(parseTap(`@tap/msg/topic/${ID}:tok/room/1`, TAP_REQUESTS)).to.deep.equal({ kind: 'msg/topic', deviceid: ID, token: 'tok', rest: 'room/1' });
    expect(parseTap(`@tap/private/topic/${ID}:t:o:k/cmd`, TAP_REQUESTS)).to.deep.include({ token: 't:o:k', rest: 'cmd' });
  });

  it('reads each watch form, wildcards included in a message filter', () => {
    expect(parseTap(`@tap/feed/updated/${ID}:tok`, TAP_WATCHES)).to.deep.include({ kind: 'feed/updated' });
    expect(parseTap(`@tap/msg/topic/${ID}:tok/room/#`, TAP_WATCHES)).to.deep.include({ rest: 'room/#' });
  });

  it('refuses what is not one of the forms: other kinds, a missing token or topic, a topic where none belongs', () => {
    for (const topic of [
      '@tap/shadow/updated/x:y',
      `@tap/shadow/get/${ID}`,
      `@tap/shadow/get/${ID}:`,
      `@tap/shadow/get/:tok`,
      `@tap/msg/topic/${ID}:tok`,
      `@tap/shadow/get/${ID}:tok/extra`,
      '@msg/room',
      '@tap',
    ]) {
      expect(parseTap(topic, TAP_REQUESTS), topic).to.equal(undefined);
    }
  });

  it('masks the token and only the token', () => {
    expect(redacted(`@tap/msg/topic/${ID}:secret-token/room/1`)).to.equal(`@tap/msg/topic/${ID}:***/room/1`);
    expect(redacted('@msg/a:b')).to.equal('@msg/a:b');
  });
});

describe('what an application sees of internal topics', () => {
  it('device notices with the device id appended, group messages with their project and group, its own replies', () => {
    expect(applicationTopic('c1', shadowUpdatedTopic(ID))).to.equal(`@shadow/data/updated/${ID}`);
    expect(applicationTopic('c1', statusChangedTopic(ID))).to.equal(`@device/status/changed/${ID}`);
    expect(applicationTopic('c1', feedUpdatedTopic(ID))).to.equal(`@feed/data/updated/${ID}`);
    expect(applicationTopic('c1', groupTopic({ projectid: 'p1', groupid: 'g1' }, 'room/1'))).to.equal('@msg/p1/g1/room/1');
    expect(applicationTopic('c1', applicationPrivateTopic('c1', 'shadow/data/get/response'))).to.equal('@private/shadow/data/get/response');
  });

  it('nothing else: a device\'s private messages, another connection\'s replies', () => {
    expect(applicationTopic('c1', privateTopic(ID, 'cmd'))).to.equal(undefined);
    expect(applicationTopic('c1', applicationPrivateTopic('c2', 'error'))).to.equal(undefined);
    expect(applicationTopic('c1', '$openpie/served')).to.equal(undefined);
  });
});
