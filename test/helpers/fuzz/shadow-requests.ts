import { CHAOS_IDS, publishProperties, REQUEST_TOPICS } from './packet-groups';
import { PacketSpec, publish, Version } from './packets';
import { Rng } from './rng';
import { ShadowRequest } from './steps';

/** Requests on `@shadow/...` topics: malformed ones the broker must answer with one error reply, and uncounted load. */

/** Well-formed and malformed `@shadow/...` requests at any QoS, counted nowhere: load on the request queue, mixed with flows. */
export function shadowSpam(rng: Rng, version: Version): PacketSpec[] {
  return Array.from({ length: rng.int(1, 5) }, (): PacketSpec => {
    const topic = rng.pick(REQUEST_TOPICS);
    const payload = rng.chance(0.5) ? malformedShadowPayload(rng, topic).payload : validShadowPayload(topic, rng.int(0, 999));
    const qos = rng.pick([0, 1, 2] as const);
    return { packet: publish(topic, payload, qos, rng.pick(CHAOS_IDS), version === 5 && rng.chance(0.5) ? { properties: publishProperties(rng) } : {}) };
  });
}

function validShadowPayload(topic: string, n: number): Buffer {
  if (topic === '@shadow/batch/update') return Buffer.from(JSON.stringify({ ackid: n, batch: [{ data: { fz: n }, ts: 0 }] }));
  return Buffer.from(topic === '@shadow/data/update' ? JSON.stringify({ data: { fz: n } }) : '');
}

const nested = (depth: number): unknown => (depth === 0 ? 1 : { n: nested(depth - 1) });
const validItem = (i: number) => ({ data: { fz: i }, ts: -i });
const text = (s: string) => Buffer.from(s);

/** A payload `@shadow/data/update` or `@shadow/batch/update` must refuse, and why (docs/device-api.md, docs/limits-and-errors.md). */
function malformedShadowPayload(rng: Rng, topic: string): { payload: Buffer; what: string } {
  const json = (v: unknown) => text(JSON.stringify(v));
  const common: [string, () => Buffer][] = [
    ['empty payload (INVALID_JSON)', () => Buffer.alloc(0)],
    ['not JSON (INVALID_JSON)', () => text(rng.pick(['{', '{"data":', 'data', '{"data":{"a":1}}x', "{'data':{}}", 'NaN', '{"data":{"a":01}}', '\u0000']))],
    ['invalid UTF-8 (INVALID_JSON)', () => Buffer.concat([text('{"data":{"a":"'), Buffer.from(rng.pick(['ff', 'c0af', 'eda080', 'c3']), 'hex'), text('"}}')])],
    ['JSON that is not an object (INVALID_BODY)', () => text(rng.pick(['[]', '5', '"x"', 'null', 'true', '[{"data":{}}]']))],
    ['a lone surrogate (INVALID_BODY)', () => text('{"data":{"a":"\\ud800"}}')],
  ];
  if (rng.chance(0.01)) return { payload: Buffer.concat([text('{"data":{"big":"'), Buffer.alloc(257 * 1024, 0x62), text('"}}')]), what: 'over 256 KiB (PAYLOAD_TOO_LARGE)' };
  const update: [string, () => Buffer][] = [
    ['no data (INVALID_BODY)', () => json(rng.pick([{}, { timestamp: 1 }, { merged: true }]))],
    ['data of a wrong type (INVALID_BODY)', () => json({ data: rng.pick([5, [1], 'x', null, true]) })],
    ['a timestamp of a wrong type (INVALID_BODY)', () => json({ data: { a: 1 }, timestamp: rng.pick(['now', 1.5, 1e300, true, null, {}]) })],
    ['a timestamp far in the future (INVALID_TIMESTAMP)', () => json({ data: { a: 1 }, timestamp: 4102444800000 })],
    ['an option of a wrong type (INVALID_BODY)', () => json({ data: { a: 1 }, [rng.pick(['merged', 'store', 'trigger'])]: rng.pick(['yes', 1, null]) })],
    ['an unknown member (INVALID_BODY)', () => json({ data: { a: 1 }, [rng.pick(['extra', 'deviceid', 'ackid', '__proto__'])]: 1 })],
    ['an empty member name (INVALID_BODY)', () => json({ data: { '': 1 } })],
    ['a member name over 256 characters (INVALID_BODY)', () => json({ data: { ['k'.repeat(257)]: 1 } })],
    ['data nested deeper than 16 levels (INVALID_BODY)', () => json({ data: nested(17) })],
  ];
  const batch: [string, () => Buffer][] = [
    ['no batch (INVALID_BODY)', () => json(rng.pick([{}, { ackid: 1 }, { merged: false }]))],
    ['a batch of a wrong type (INVALID_BODY)', () => json({ batch: rng.pick([5, {}, null, 'x']) })],
    ['an empty batch (INVALID_BODY)', () => json({ ackid: rng.int(1, 99), batch: [] })],
    ['an ackid of a wrong type (INVALID_BODY)', () => json({ ackid: rng.pick([{}, [1], true, null]), batch: [validItem(0)] })],
    ['an unknown member (INVALID_BODY)', () => json({ batch: [validItem(0)], [rng.pick(['x', 'data', 'ts'])]: 1 })],
    ['more than 100 items (BATCH_TOO_LARGE)', () => json({ ackid: rng.int(1, 99), batch: Array.from({ length: rng.int(101, 150) }, (_, i) => validItem(i)) })],
    ['a bad item (INVALID_BATCH_ITEM)', () => {
      const items: unknown[] = Array.from({ length: rng.int(1, 5) }, (_, i) => validItem(i));
      items.splice(rng.int(0, items.length), 0, rng.pick<unknown>([5, null, { data: { a: 1 } }, { data: { a: 1 }, ts: 'x' }, { data: 5, ts: 0 }, { data: { a: 1 }, ts: 0, timestamp: 0 }, { data: { a: 1 }, ts: 0, x: 1 }, { ts: 0 }]));
      return json({ ackid: rng.pick(['a', 7]), batch: items });
    }],
  ];
  const [what, make] = rng.pick([...common, ...(topic === '@shadow/batch/update' ? batch : update)]);
  return { payload: make(), what };
}

/** One request the broker must answer with exactly one error reply. */
export function malformedShadowRequest(rng: Rng, version: Version): ShadowRequest {
  const qos = rng.pick([0, 0, 1, 2] as const);
  // A valid payload with a Response Topic outside `@private/` is refused as INVALID_TOPIC (MQTT 5 only).
  if (version === 5 && rng.chance(0.2)) {
    const topic = rng.pick(REQUEST_TOPICS);
    return { topic, payload: validShadowPayload(topic, rng.int(0, 999)), qos, responseTopic: rng.pick(['@msg/fz/r', '@shadow/data/updated', 'elsewhere', '@private//x', '@private/']), what: 'a Response Topic outside @private/ (INVALID_TOPIC)' };
  }
  const topic = rng.pick(['@shadow/data/update', '@shadow/batch/update'] as const);
  const { payload, what } = malformedShadowPayload(rng, topic);
  const extra = version === 5 ? { ...(rng.chance(0.3) ? { responseTopic: `@private/fz/r${rng.int(0, 9)}` } : {}), ...(rng.chance(0.2) ? { alias: rng.int(1, 3) } : {}) } : {};
  return { topic, payload, qos, what, ...extra };
}
