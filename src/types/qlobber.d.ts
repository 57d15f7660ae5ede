/** The parts of qlobber 8 (the matcher aedes and aedes-persistence use) that the session stores call. */
declare module 'qlobber' {
  interface QlobberOptions {
    separator?: string;
    wildcard_one?: string;
    wildcard_some?: string;
    match_empty_levels?: boolean;
  }
  export class QlobberTrue {
    constructor(options?: QlobberOptions);
    add(topic: string): this;
    test(topic: string): boolean;
  }
}

declare module 'qlobber/aedes/qlobber-sub' {
  /** aedes-persistence's subscription trie: values `{ clientId, topic, qos, ... }`, one per client and filter. */
  class QlobberSub<V extends { clientId: string; topic: string }> {
    constructor(options?: { separator?: string; wildcard_one?: string; wildcard_some?: string });
    add(topic: string, value: V): this;
    /** Takes out the value of `value.clientId` under `topic`. */
    remove(topic: string, value: Pick<V, 'clientId' | 'topic'>): this;
    match(topic: string): V[];
  }
  export = QlobberSub;
}
