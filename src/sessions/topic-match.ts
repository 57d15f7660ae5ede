import { QlobberTrue } from 'qlobber';
import QlobberSub from 'qlobber/aedes/qlobber-sub';
import { MatchedSubscription } from './port';

/**
 * Topic matching for the session stores. A store shared by the nodes of a cluster (Redis) holds no trie in memory: a
 * trie per process drifts apart between the nodes (aedes-persistence-redis keeps one, synced only through the local
 * broker), so it indexes each filter by its literal head instead, and matches against the few filters a topic's heads
 * select. A store of one process (SQLite) keeps a trie beside its table (`subscriptionIndex`), since it sees every
 * change.
 *
 * Matching itself is qlobber's, with aedes-persistence's options, so results and their order are the in-memory
 * reference's (its abstract suite compares them).
 */
const OPTIONS = { separator: '/', wildcard_one: '+', wildcard_some: '#' };

/** The levels of `filter` before its first wildcard level: `a/b/+/c` -> `a/b`, `#` -> ``, `a/b` -> `a/b`. */
export function literalHead(filter: string): string {
  const levels = filter.split('/');
  const wildcard = levels.findIndex((level) => level === '+' || level === '#');
  return (wildcard === -1 ? levels : levels.slice(0, wildcard)).join('/');
}

/**
 * Every literal head a filter matching `topic` can have: `` and each run of leading levels, the whole topic included
 * (`a/b` -> ``, `a`, `a/b`). A filter `a/#` (head `a`) matches `a` itself [MQTT-4.7.1-2], and its head is among them.
 */
export function headsOf(topic: string): string[] {
  const levels = topic.split('/');
  const heads = [''];
  for (let i = 1; i <= levels.length; i++) heads.push(levels.slice(0, i).join('/'));
  return heads;
}

/** The subscriptions among `candidates` whose filter matches `topic`, as aedes-persistence's trie would list them. */
export function matchSubscriptions(candidates: Iterable<MatchedSubscription>, topic: string): MatchedSubscription[] {
  const trie = new QlobberSub<MatchedSubscription>(OPTIONS);
  for (const sub of candidates) trie.add(sub.topic, sub);
  return trie.match(topic);
}

/** The QoS 1 and 2 subscriptions of one process's session store, in memory; the store calls it after each commit. */
export interface SubscriptionIndex {
  /** Adds or replaces the subscription of `clientId` to `sub.topic`; a QoS 0 one is taken out (never matched). */
  set(clientId: string, sub: Omit<MatchedSubscription, 'clientId'>): void;
  remove(clientId: string, filter: string): void;
  /** As `matchSubscriptions` over every subscription set and not removed. */
  match(topic: string): MatchedSubscription[];
}

export function subscriptionIndex(): SubscriptionIndex {
  const trie = new QlobberSub<MatchedSubscription>(OPTIONS);
  return {
    set(clientId, { topic, qos, rh, rap, nl }) {
      if (qos > 0) trie.add(topic, { clientId, topic, qos, rh, rap, nl });
      else trie.remove(topic, { clientId, topic });
    },
    remove: (clientId, filter) => void trie.remove(filter, { clientId, topic: filter }),
    match: (topic) => trie.match(topic),
  };
}

/** A test for topics against several filters (retained lookups). */
export function topicTester(patterns: string[]): (topic: string) => boolean {
  const qlobber = new QlobberTrue(OPTIONS);
  for (const pattern of patterns) qlobber.add(pattern);
  return (topic) => qlobber.test(topic);
}

/**
 * The range of topics a key-ordered index must scan for `pattern`: those starting with its literal head. The upper
 * bound is the head followed by the highest code point, above any topic character that follows the head.
 */
export function headRange(pattern: string): { from: string; to: string } {
  const head = literalHead(pattern);
  return { from: head, to: `${head}\u{10FFFF}` };
}
