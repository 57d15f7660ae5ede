import { expect } from 'chai';
import { MqttClient } from 'mqtt';
import { aDevice, aGroup, TestDevice } from '../../helpers/devices';
import { collect, connectDevice, endAll, nextMessage, sleep } from '../../helpers/mqtt';
import { restPublish } from '../../helpers/mqtt-expect';
import { startStack, Stack } from '../../helpers/stack';

/** How long a message that should not arrive gets, after one that should has arrived. */
const QUIET_MS = 300;

describe('@msg traffic between groups and projects', () => {
  let stack: Stack;
  let a1: TestDevice, a2: TestDevice, b1: TestDevice, otherProject: TestDevice;
  let clients: MqttClient[];
  let inbox: Map<TestDevice, { topic: string; payload: string }[]>;

  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  // Two devices in group A, one in group B of the same project, one in another project that reuses A's group id.
  beforeEach(async () => {
    [a1, a2] = await aGroup(stack, 2);
    b1 = await aDevice(stack, { projectid: a1.projectid });
    otherProject = await aDevice(stack, { groupid: a1.groupid });
    const devices = [a1, a2, b1, otherProject];
    clients = await Promise.all(devices.map((d) => connectDevice(stack.mqttUrl, d)));
    await Promise.all(clients.map((c) => c.subscribeAsync('@msg/#')));
    inbox = new Map(devices.map((d, i) => [d, collect(clients[i])]));
  });
  afterEach(() => endAll(...clients));

  const clientOf = (d: TestDevice) => clients[[a1, a2, b1, otherProject].indexOf(d)];

  it('delivers an MQTT publish to the rest of the group, with its topic and payload bytes as sent', async () => {
    const payload = Buffer.concat([Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f]), Buffer.from(' héllo ✓')]);
    const arrived = new Promise<[string, Buffer]>((resolve) => clientOf(a2).once('message', (t, p) => resolve([t, p])));

    await clientOf(a1).publishAsync('@msg/a/b', payload);

    const [topic, bytes] = await arrived;
    expect(topic).to.equal('@msg/a/b');
    expect(bytes.equals(payload), `payload ${bytes.toString('hex')}`).to.equal(true);
  });

  it('keeps an MQTT publish away from another group and another project', async () => {
    const arrived = nextMessage(clientOf(a2));

    await clientOf(a1).publishAsync('@msg/a/b', 'for group A');
    await arrived;
    await sleep(QUIET_MS);

    expect(inbox.get(b1), 'group B').to.deep.equal([]);
    expect(inbox.get(otherProject), 'other project, same group id').to.deep.equal([]);
  });

  it('never shows the internal topic prefix to any subscriber', async () => {
    const arrived = [nextMessage(clientOf(a2)), nextMessage(clientOf(b1))];

    await clientOf(a1).publishAsync('@msg/a/b', 'one');
    await restPublish(stack, b1, 'c/d', 'two');
    await Promise.all(arrived);
    await sleep(100);

    const topics = [...inbox.values()].flat().map((m) => m.topic);
    expect(topics).to.not.be.empty;
    for (const topic of topics) expect(topic).to.match(/^@msg\/(a\/b|c\/d)$/);
  });

  it('lets REST and MQTT meet: a REST publish reaches MQTT subscribers of the caller group only', async () => {
    const atA1 = nextMessage(clientOf(a1));
    const atA2 = nextMessage(clientOf(a2));

    await restPublish(stack, a2, 'a/b', 'via REST');

    expect(await atA1).to.deep.equal({ topic: '@msg/a/b', payload: 'via REST' });
    expect(await atA2).to.deep.equal({ topic: '@msg/a/b', payload: 'via REST' });
    await sleep(QUIET_MS);
    expect(inbox.get(b1)).to.deep.equal([]);
    expect(inbox.get(otherProject)).to.deep.equal([]);
  });

  it('lets a group use the same topic as another group without hearing it', async () => {
    const atB1 = nextMessage(clientOf(b1));
    const atA2 = nextMessage(clientOf(a2));

    await clientOf(b1).publishAsync('@msg/a/b', 'from B');
    await clientOf(a1).publishAsync('@msg/a/b', 'from A');

    expect((await atB1).payload).to.equal('from B');
    expect((await atA2).payload).to.equal('from A');
    await sleep(QUIET_MS);
    expect(inbox.get(b1)!.map((m) => m.payload)).to.deep.equal(['from B']);
    expect(inbox.get(a2)!.map((m) => m.payload)).to.deep.equal(['from A']);
  });
});

describe('@msg wildcard subscriptions', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  /** Publishes every topic in order and returns the topics `filter` received, in order. */
  async function received(filter: string, topics: string[]): Promise<string[]> {
    const [publisher, listener] = await aGroup(stack, 2);
    const client = await connectDevice(stack.mqttUrl, listener);
    try {
      await client.subscribeAsync([filter, '@msg/end-marker']);
      const seen = collect(client);
      // Listen for the marker before sending it: it can arrive before the REST call that sends it returns.
      const ended = nextMessage(client, (t) => t === '@msg/end-marker');
      for (const topic of topics) await restPublish(stack, publisher, topic, topic);
      await restPublish(stack, publisher, 'end-marker', '');
      await ended;
      await sleep(50);
      return seen.map((m) => m.topic).filter((t) => t !== '@msg/end-marker');
    } finally {
      await endAll(client);
    }
  }

  it('+ matches exactly one level in the middle', async () => {
    const got = await received('@msg/home/+/door', ['home/kitchen/door', 'home/door', 'home/a/b/door', 'home/hall/window']);
    expect(got).to.deep.equal(['@msg/home/kitchen/door']);
  });

  it('+ at the end matches one level and not deeper ones', async () => {
    const got = await received('@msg/+', ['x', 'y', 'x/y']);
    expect(got).to.deep.equal(['@msg/x', '@msg/y']);
  });

  it('# matches the parent level and every level below it', async () => {
    const got = await received('@msg/home/#', ['home', 'home/lamp', 'home/a/b/c', 'homeward']);
    expect(got).to.deep.equal(['@msg/home', '@msg/home/lamp', '@msg/home/a/b/c']);
  });
});
