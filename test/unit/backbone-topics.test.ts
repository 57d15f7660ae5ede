import { expect } from 'chai';
import { messageTopic, parseBackboneTopic } from '../../src/adapters/backbone/backbone-topics';
import { applicationPrivateTopic, desiredDeltaTopic, feedUpdatedTopic, groupTopic, privateTopic, shadowUpdatedTopic, statusChangedTopic } from '../../src/messaging/topics';

describe('MQTT backbone topics', () => {
  it('carries group and private messages with their scope, and maps them back to the same internal topic', () => {
    const group = groupTopic({ projectid: 'p1', groupid: 'g1' }, 'home/lamp');
    const direct = privateTopic('d1', 'cmd/reboot');

    expect(messageTopic(group)).to.equal('openpie/v1/msg/g/p1/g1/@msg/home/lamp');
    expect(messageTopic(direct)).to.equal('openpie/v1/msg/d/d1/@private/cmd/reboot');
    expect(parseBackboneTopic(messageTopic(group)!)).to.deep.equal({ kind: 'message', internalTopic: group });
    expect(parseBackboneTopic(messageTopic(direct)!)).to.deep.equal({ kind: 'message', internalTopic: direct });
  });

  it('carries shadow notices to the node of their device, whichever node took the write (issue 18 §2)', () => {
    const notice = shadowUpdatedTopic('d1');

    expect(messageTopic(notice)).to.equal('openpie/v1/msg/d/d1/@shadow/data/updated');
    expect(parseBackboneTopic(messageTopic(notice)!)).to.deep.equal({ kind: 'message', internalTopic: notice });
    expect(parseBackboneTopic('openpie/v1/msg/d/d1/@shadow/data/updated/x')).to.equal(undefined);
    expect(parseBackboneTopic('openpie/v1/msg/d//@shadow/data/updated')).to.equal(undefined);
  });

  it('carries the desired delta to the node of its device, as shadow notices (issue 25 §2)', () => {
    const delta = desiredDeltaTopic('d1');

    expect(messageTopic(delta)).to.equal('openpie/v1/msg/d/d1/@shadow/desired/delta');
    expect(parseBackboneTopic(messageTopic(delta)!)).to.deep.equal({ kind: 'message', internalTopic: delta });
  });

  it('carries status and feed notices to the nodes of the applications watching the device (issue 22 §3)', () => {
    for (const notice of [statusChangedTopic('d1'), feedUpdatedTopic('d1')]) {
      expect(parseBackboneTopic(messageTopic(notice)!)).to.deep.equal({ kind: 'message', internalTopic: notice });
    }
    expect(messageTopic(applicationPrivateTopic('app-1', 'shadow/data/get/response')), 'an application\'s replies stay on its node').to.equal(undefined);
    expect(parseBackboneTopic('openpie/v1/msg/d/d1/@device/status/changed/x')).to.equal(undefined);
  });

  it('keeps the broker\'s own topics on their node', () => {
    for (const topic of ['$openpie/served', '$openpie/refused', '$openpie/d/d1/@shadow/data/get', 'plain/topic', '$openpie/g/p1/g1/@msg']) {
      expect(messageTopic(topic), topic).to.equal(undefined);
    }
  });

  it('reads the control topics of nodes and devices', () => {
    expect(parseBackboneTopic('openpie/v1/presence/n1')).to.deep.equal({ kind: 'presence', node: 'n1' });
    expect(parseBackboneTopic('openpie/v1/hello/n1')).to.deep.equal({ kind: 'hello', node: 'n1' });
    expect(parseBackboneTopic('openpie/v1/bye/n1')).to.deep.equal({ kind: 'bye', node: 'n1' });
    expect(parseBackboneTopic('openpie/v1/kick/d1')).to.deep.equal({ kind: 'kick', deviceid: 'd1' });
    expect(parseBackboneTopic('openpie/v1/changed/n1')).to.deep.equal({ kind: 'changed', node: 'n1' });
    expect(parseBackboneTopic('openpie/v1/rate/n1')).to.deep.equal({ kind: 'rate', node: 'n1' });
  });

  it('ignores topics outside its layout', () => {
    const foreign = [
      'openpie/v2/presence/n1',
      'openpie/v1/presence',
      'openpie/v1/kick/d1/extra',
      'openpie/v1/changed',
      'openpie/v1/unknown/n1',
      'openpie/v1/msg/x/p1/g1/@msg/a',
      'openpie/v1/msg/g/p1/g1/@private/a',
      'openpie/v1/msg/g/p1//@msg/a',
      'openpie/v1/msg/d/d1/@private',
      'elsewhere/v1/presence/n1',
    ];
    for (const topic of foreign) expect(parseBackboneTopic(topic), topic).to.equal(undefined);
  });
});
