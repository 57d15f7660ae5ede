import { isLeft } from 'fp-ts/Either';
import * as t from 'io-ts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { NodeConnections } from '../../connections/codecs';
import { ConnectionGathering } from '../../connections/port';
import { inspectedTopic, inspectTopic } from './backbone-topics';

const InspectRequest = t.exact(t.type({ id: t.string, deviceid: t.string }));
const InspectReply = t.exact(t.type({ id: t.string, part: NodeConnections }));

/** What the backbone hands the gathering. */
export interface BackboneConnectionGathering extends ConnectionGathering {
  /** `openpie/v1/inspect/{node}`: `node` asks for a device's connections. */
  asked(node: string, payload: Buffer): void;
  /** `openpie/v1/inspected/{node}`: an answer to `node`. */
  answered(node: string, payload: Buffer): void;
  /** A node is on the backbone (its hello or presence report), or left it (bye, or its Last Will). */
  nodeSeen(node: string): void;
  nodeGone(node: string): void;
  /** This node lost the backbone: it cannot know who is on it until it is back. */
  forgetNodes(): void;
}

interface Pending {
  waitingFor: Set<string>;
  answers: NodeConnections[];
  done(): void;
}

/**
 * The connection inspector across the nodes (issue 24 §2): a request/reply over the backbone rather than a shared
 * store, so connects and disconnects cost no store write on the devices' path and a node's history stays in its
 * memory. The asking node publishes the request to every node (all subscribe to `openpie/v1/#`) and waits for the
 * nodes it knows to be on the backbone, at most `timeoutMs`; the ones still silent are named in the answer. QoS 0:
 * a lost request or answer makes that node silent for one answer, nothing more.
 */
export function createMqttConnectionGathering(options: {
  nodeId: string;
  /** Publishes at QoS 0 when the backbone is connected; false when it is not. */
  publish: (topic: string, payload: string) => boolean;
  timeoutMs: number;
  logger: Logger;
}): BackboneConnectionGathering {
  const { nodeId, publish, timeoutMs, logger } = options;
  const peers = new Set<string>();
  const pending = new Map<string, Pending>();
  let answer: ((deviceid: string) => Promise<NodeConnections>) | undefined;

  const decode = <A>(codec: t.Decoder<unknown, A>, payload: Buffer): A | undefined => {
    try {
      const decoded = codec.decode(JSON.parse(payload.toString('utf8')));
      return isLeft(decoded) ? undefined : decoded.right;
    } catch {
      return undefined;
    }
  };

  return {
    gather(deviceid) {
      const waitingFor = new Set([...peers].filter((node) => node !== nodeId));
      if (waitingFor.size === 0) return Promise.resolve({ answers: [], silent: [] });
      const id = randomUUID();
      return new Promise((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          pending.delete(id);
          resolve({ answers: entry.answers, silent: [...entry.waitingFor].sort() });
        };
        const timer = setTimeout(finish, timeoutMs).unref();
        const entry: Pending = { waitingFor, answers: [], done: finish };
        pending.set(id, entry);
        if (!publish(inspectTopic(nodeId), JSON.stringify({ id, deviceid }))) finish();
      });
    },
    answerWith(fn) {
      answer = fn;
    },
    asked(node, payload) {
      const request = decode(InspectRequest, payload);
      if (!request || !answer || node === nodeId) return;
      answer(request.deviceid).then(
        (part) => void publish(inspectedTopic(node), JSON.stringify({ id: request.id, part })),
        (err: unknown) => logger.warn({ err, node }, 'connections of a device not answered to another node'),
      );
    },
    answered(node, payload) {
      if (node !== nodeId) return;
      const reply = decode(InspectReply, payload);
      const entry = reply && pending.get(reply.id);
      if (!reply || !entry || !entry.waitingFor.delete(reply.part.node)) return;
      entry.answers.push(reply.part);
      if (entry.waitingFor.size === 0) entry.done();
    },
    nodeSeen: (node) => void peers.add(node),
    nodeGone: (node) => void peers.delete(node),
    forgetNodes: () => peers.clear(),
  };
}
