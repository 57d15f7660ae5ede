import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { NodeRecord, NodeRegistry } from '../../../src/cluster/port';
import { sleep } from '../../helpers/mqtt';

export interface OpenNodeRegistry {
  nodes: NodeRegistry;
  dispose(): Promise<void>;
}

const aRun = (nodeId: string, fields: Partial<NodeRecord> = {}): NodeRecord => ({
  nodeId,
  incarnation: randomUUID(),
  host: 'host-a',
  pid: 1234,
  started: Date.UTC(2025, 0, 1),
  heartbeat: Date.UTC(2025, 0, 1),
  ...fields,
});
const aNodeId = () => `node-${randomUUID().slice(0, 8)}`;

/** NodeRegistry (src/cluster/port.ts): one running node per NODE_ID. Only the Cassandra store has one. */
export function nodeRegistryContract(adapter: string, open: () => Promise<OpenNodeRegistry>): void {
  describe(`NodeRegistry contract: ${adapter}`, () => {
    let opened: OpenNodeRegistry;
    let nodes: NodeRegistry;
    before(async () => {
      opened = await open();
      nodes = opened.nodes;
    });
    after(async () => {
      await opened?.dispose();
    });

    it('holds a free NODE_ID for the first run, and names that run to a second one', async () => {
      const nodeId = aNodeId();
      const first = aRun(nodeId);

      expect(await nodes.claim(first, 30)).to.deep.equal({ held: true });
      const second = await nodes.claim(aRun(nodeId, { host: 'host-b', pid: 99 }), 30);

      expect(second).to.deep.equal({ held: false, holder: first });
    });

    it('lets exactly one of five runs claiming one NODE_ID at once hold it', async () => {
      const nodeId = aNodeId();

      const outcomes = await Promise.all(Array.from({ length: 5 }, () => nodes.claim(aRun(nodeId), 30)));

      expect(outcomes.filter((o) => o.held)).to.have.length(1);
    });

    it('renews only the run that holds the NODE_ID, with the new heartbeat', async () => {
      const nodeId = aNodeId();
      const first = aRun(nodeId);
      await nodes.claim(first, 30);

      const renewed = { ...first, heartbeat: first.heartbeat + 10_000 };
      expect(await nodes.renew(renewed, 30)).to.deep.equal({ held: true });
      expect(await nodes.renew(aRun(nodeId), 30)).to.deep.equal({ held: false, holder: renewed });
    });

    it('frees the NODE_ID on release by its holder only', async () => {
      const nodeId = aNodeId();
      const first = aRun(nodeId);
      await nodes.claim(first, 30);

      await nodes.release(aRun(nodeId));
      expect((await nodes.claim(aRun(nodeId), 30)).held).to.equal(false);
      await nodes.release(first);

      expect(await nodes.claim(aRun(nodeId), 30)).to.deep.equal({ held: true });
    });

    it('frees the NODE_ID of a run that stopped renewing once its TTL has passed; that run, renewing late, is told who holds it', async () => {
      const nodeId = aNodeId();
      const crashed = aRun(nodeId);
      await nodes.claim(crashed, 1);
      await sleep(1500);

      const next = aRun(nodeId);
      expect(await nodes.claim(next, 30)).to.deep.equal({ held: true });
      expect(await nodes.renew(crashed, 30)).to.deep.equal({ held: false, holder: next });
    });

    it('holds the NODE_ID again when a renewal comes after the TTL and nobody took it', async () => {
      const nodeId = aNodeId();
      const late = aRun(nodeId);
      await nodes.claim(late, 1);
      await sleep(1500);

      expect(await nodes.renew(late, 30)).to.deep.equal({ held: true });
      expect((await nodes.claim(aRun(nodeId), 30)).held).to.equal(false);
    });
  });
}
