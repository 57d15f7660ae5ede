import { generate, IPublishPacket, Packet } from 'mqtt-packet';

/** One packet as the fuzzer writes it: an mqtt-packet packet and its bytes, maybe mutated after mqtt-packet wrote them. */

export type Version = 4 | 5;

/** A change to a packet's bytes after mqtt-packet wrote it. Offsets past the end are taken modulo the length. */
export type Mutation =
  /** Keeps the first `keep` bytes (at most all but one). */
  | { kind: 'truncate'; keep: number }
  | { kind: 'flip'; at: number; xor: number }
  /** The low nibble of the fixed header: flags that [MQTT-2.2.2-1] fixes for every packet but PUBLISH. */
  | { kind: 'flags'; nibble: number }
  /** These bytes instead of the true Remaining Length [MQTT-2.2.3]. */
  | { kind: 'length'; bytes: number[] }
  /** Overwrites bytes from `at` of the variable header (after the fixed header): invalid UTF-8 in a topic. */
  | { kind: 'overwrite'; at: number; hex: string }
  | { kind: 'append'; hex: string };

export type PacketSpec = { packet: Packet; mutate?: Mutation } | { raw: string };

function fixedHeaderLength(bytes: Buffer): number {
  let i = 1;
  while (i < bytes.length && i < 5 && (bytes[i] & 0x80) !== 0) i++;
  return Math.min(i + 1, bytes.length);
}

export function mutate(bytes: Buffer, m: Mutation): Buffer {
  const out = Buffer.from(bytes);
  switch (m.kind) {
    case 'truncate':
      return out.subarray(0, Math.max(1, Math.min(m.keep, out.length - 1)));
    case 'flip':
      out[m.at % out.length] ^= m.xor;
      return out;
    case 'flags':
      out[0] = (out[0] & 0xf0) | (m.nibble & 0x0f);
      return out;
    case 'length':
      return Buffer.concat([out.subarray(0, 1), Buffer.from(m.bytes), out.subarray(fixedHeaderLength(out))]);
    case 'overwrite': {
      const start = fixedHeaderLength(out) + m.at;
      Buffer.from(m.hex, 'hex').copy(out, Math.min(start, out.length));
      return out;
    }
    case 'append':
      return Buffer.concat([out, Buffer.from(m.hex, 'hex')]);
  }
}

/** How many bytes a packet has by the Remaining Length its fixed header declares [MQTT-2.2.3]. */
function declaredLength(bytes: Buffer): number {
  const header = fixedHeaderLength(bytes);
  let remaining = 0;
  for (let i = 1; i < header; i++) remaining += (bytes[i] & 0x7f) * 2 ** (7 * (i - 1));
  return header + remaining;
}

/**
 * The bytes of one spec; throws when mqtt-packet refuses the packet. mqtt-packet writes a length past its field's range
 * (a string over 65,535 bytes) as nothing at all and goes on, so the packet is shorter than it declares: the broker
 * would rightly wait for the rest, taking the next packets as its body. Such a packet is refused here too.
 */
export function encode(spec: PacketSpec, version: Version): Buffer {
  if ('raw' in spec) return Buffer.from(spec.raw, 'hex');
  const bytes = generate(spec.packet, { protocolVersion: version });
  if (declaredLength(bytes) !== bytes.length) throw new Error(`mqtt-packet wrote ${bytes.length} bytes of a ${declaredLength(bytes)}-byte ${spec.packet.cmd}`);
  return spec.mutate ? mutate(bytes, spec.mutate) : bytes;
}

/** A packet mqtt-packet refuses to write (a property its version lacks, a value out of range) goes as a PINGREQ. */
export function encodeOrPing(spec: PacketSpec, version: Version): Buffer {
  try {
    return encode(spec, version);
  } catch {
    return Buffer.from([0xc0, 0x00]);
  }
}

export const publish = (topic: string, payload: Buffer | string, qos: 0 | 1 | 2, messageId?: number, extra: Partial<IPublishPacket> = {}): IPublishPacket => ({
  cmd: 'publish', topic, payload, qos, dup: false, retain: false, ...(qos > 0 ? { messageId } : {}), ...extra,
});
