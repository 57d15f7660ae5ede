import { expect } from 'chai';
import { createClusterPresence } from '../../src/devices/cluster-presence';
import { Device } from '../../src/devices/device';
import { createPresence } from '../../src/devices/presence';

const aDevice = (deviceid: string, livenessttl = 0): Device => ({
  deviceid,
  token: 't',
  secret: 's',
  alias: deviceid,
  groupid: 'g',
  projectid: 'p',
  enabled: true,
  banned: false,
  description: '',
  livenessttl,
  created: 0,
});

/** One node's presence on a clock the test moves. */
function aNode(nodeId: string, clock = { ms: 1_000 }, touchIntervalMs = 1_000_000) {
  const cluster = createClusterPresence(createPresence(() => clock.ms), { nodeId, touchIntervalMs, now: () => clock.ms });
  const sent: object[] = [];
  cluster.reportTo((report) => sent.push(report));
  return { cluster, presence: cluster.presence, sent, clock };
}

describe('presence across nodes', () => {
  const lamp = aDevice('lamp');

  it('counts a device online while another node reports a connection, until that node reports none', () => {
    const { cluster, presence } = aNode('n1');

    cluster.apply('n2', { connections: { lamp: 1 } });
    expect(presence.statusOf(lamp)).to.equal(1);

    cluster.apply('n2', { connections: { lamp: 0 } });
    expect(presence.statusOf(lamp)).to.equal(0);
  });

  it('replaces what a node said with its full report, and forgets it when it leaves or this node is cut off', () => {
    const { cluster, presence } = aNode('n1');
    cluster.apply('n2', { connections: { lamp: 1, fan: 1 } });

    cluster.apply('n2', { full: true, connections: { fan: 1 } });
    expect([presence.statusOf(lamp), presence.statusOf(aDevice('fan'))]).to.deep.equal([0, 1]);

    cluster.forgetNode('n2');
    expect(presence.statusOf(aDevice('fan'))).to.equal(0);

    cluster.apply('n3', { connections: { fan: 1 } });
    cluster.forgetOtherNodes();
    expect(presence.statusOf(aDevice('fan'))).to.equal(0);
  });

  it('ignores counts that are not positive integers', () => {
    const { cluster, presence } = aNode('n1');
    cluster.apply('n2', { connections: { lamp: 1.5 } });
    expect(presence.statusOf(lamp)).to.equal(0);
  });

  it('reports each change of its own connections, with when the newest opened, and all of them in a full report', () => {
    const { presence, cluster, sent, clock } = aNode('n1');

    presence.connected('lamp');
    clock.ms = 2_000;
    presence.connected('lamp');
    presence.disconnected('lamp');
    presence.disconnected('lamp');

    expect(sent).to.deep.equal([
      { connections: { lamp: 1 }, since: { lamp: 1_000 } },
      { connections: { lamp: 2 }, since: { lamp: 2_000 } },
      { connections: { lamp: 1 }, since: { lamp: 2_000 } },
      { connections: { lamp: 0 } },
    ]);
    presence.connected('fan');
    expect(cluster.fullReport()).to.deep.equal({ full: true, connections: { fan: 1 }, since: { fan: 2_000 } });
  });

  it('keeps exactly one session of a device connected to two nodes, even when their reports cross', () => {
    const one = aNode('n1', { ms: 1_000 });
    const two = aNode('n2', { ms: 1_005 });
    one.presence.connected('lamp');
    two.presence.connected('lamp');

    // Each node hears of the other's connection only after its own opened.
    const closedOnOne = one.cluster.apply('n2', two.sent[0] as never);
    const closedOnTwo = two.cluster.apply('n1', one.sent[0] as never);

    expect([closedOnOne, closedOnTwo]).to.deep.equal([['lamp'], []]);
  });

  it('breaks a tie of opening times by node name, so that still one session stays', () => {
    const one = aNode('n1', { ms: 1_000 });
    const two = aNode('n2', { ms: 1_000 });
    one.presence.connected('lamp');
    two.presence.connected('lamp');

    expect([one.cluster.apply('n2', two.sent[0] as never), two.cluster.apply('n1', one.sent[0] as never)]).to.deep.equal([['lamp'], []]);
  });

  it('gathers the REST calls of an interval into one report', async () => {
    const here = aNode('n1', { ms: 1_000 }, 20);

    for (const deviceid of ['sensor', 'sensor', 'lamp']) here.presence.touched(deviceid);
    expect(here.sent, 'nothing sent before the interval').to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 60));

    expect(here.sent).to.deep.equal([{ touched: ['sensor', 'lamp'] }]);
    here.cluster.close();
  });

  it('keeps a device with a liveness TTL online for that long on the node told of its REST call', () => {
    const clock = { ms: 1_000 };
    const there = aNode('n2', clock);
    const sensor = aDevice('sensor', 60);

    there.cluster.apply('n1', { touched: ['sensor'] });
    expect(there.presence.statusOf(sensor)).to.equal(1);
    clock.ms += 61_000;
    expect(there.presence.statusOf(sensor)).to.equal(0);
  });
});
