import { isIPv4, isIPv6 } from 'node:net';

/**
 * The PROXY protocol header a balancer (HAProxy `send-proxy`/`send-proxy-v2`, nginx `proxy_protocol on`, cloud load
 * balancers) puts before a connection's first byte to say whom it relays: version 1 is one line of text, version 2 a
 * binary block (HAProxy's "The PROXY protocol", versions 1 & 2, sections 2.1 and 2.2).
 */

/** Where a relayed connection comes from. */
export interface ProxiedSource {
  readonly address: string;
  readonly port: number;
  readonly family: 'IPv4' | 'IPv6';
}

/**
 * `proxied`: the connection is relayed for `source`. `local`: the header carries no usable source (v1 `UNKNOWN`, v2
 * `LOCAL` such as a balancer's own health check, v2 `UNSPEC` or `AF_UNIX`): the spec says to use the connection's own
 * endpoints (2.1 "UNKNOWN", 2.2 "LOCAL").
 */
export type ProxyHeader = { readonly kind: 'proxied'; readonly source: ProxiedSource } | { readonly kind: 'local' };

/** A header and how many bytes of the buffer it took; `incomplete` until they are all in; `error` is one line. */
export type ProxyHeaderParse = { readonly header: ProxyHeader; readonly length: number } | { readonly incomplete: true } | { readonly error: string };

const V1_PREFIX = Buffer.from('PROXY ', 'ascii');
/** 2.1: "a receiver [...] must not read more than 107 characters", CRLF included. */
const V1_MAX_LENGTH = 107;
/** 2.2: the twelve bytes every version 2 header starts with ("\r\n\r\n\0\r\nQUIT\n"). */
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
/** Signature, version and command, family and transport, and the length of what follows (big-endian). */
const V2_FIXED_LENGTH = 16;

const INCOMPLETE = { incomplete: true } as const;

/** Reads the header at the start of `buffer`: call again with more bytes while it is `incomplete`. */
export function parseProxyHeader(buffer: Buffer): ProxyHeaderParse {
  if (startsLike(buffer, V2_SIGNATURE)) return buffer.length < V2_SIGNATURE.length ? INCOMPLETE : parseV2(buffer);
  if (startsLike(buffer, V1_PREFIX)) return buffer.length < V1_PREFIX.length ? INCOMPLETE : parseV1(buffer);
  return { error: 'no PROXY protocol header' };
}

/** The buffer's bytes so far agree with the start of `prefix` (the first byte already tells the versions apart). */
const startsLike = (buffer: Buffer, prefix: Buffer) => buffer.subarray(0, prefix.length).equals(prefix.subarray(0, Math.min(buffer.length, prefix.length)));

/** 2.1: `PROXY TCP4|TCP6 <source> <destination> <source port> <destination port>\r\n`, or `PROXY UNKNOWN ...\r\n`. */
function parseV1(buffer: Buffer): ProxyHeaderParse {
  const end = buffer.subarray(0, V1_MAX_LENGTH).indexOf('\r\n');
  if (end < 0) return buffer.length >= V1_MAX_LENGTH ? { error: 'PROXY v1 line longer than 107 bytes' } : INCOMPLETE;
  const length = end + 2;
  const fields = buffer.subarray(0, end).toString('latin1').split(' ');
  // "UNKNOWN": the rest of the line is ignored, the connection's own endpoints are used.
  if (fields[1] === 'UNKNOWN') return { header: { kind: 'local' }, length };
  if (fields.length !== 6) return { error: 'PROXY v1 line must have 6 fields' };
  const [, protocol, source, destination, sourcePort, destinationPort] = fields;
  const isAddress = protocol === 'TCP4' ? isIPv4 : protocol === 'TCP6' ? isIPv6 : undefined;
  if (isAddress === undefined) return { error: `PROXY v1 protocol must be TCP4, TCP6 or UNKNOWN` };
  if (!isAddress(source) || !isAddress(destination)) return { error: `PROXY v1 addresses are not ${protocol} addresses` };
  if (!isPort(sourcePort) || !isPort(destinationPort)) return { error: 'PROXY v1 ports must be 0-65535 without leading zeros' };
  const family = protocol === 'TCP4' ? 'IPv4' : 'IPv6';
  return { header: { kind: 'proxied', source: { address: family === 'IPv6' ? canonicalIpv6(source) : source, port: Number(sourcePort), family } }, length };
}

const isPort = (text: string) => /^(0|[1-9]\d{0,4})$/.test(text) && Number(text) <= 65535;

/** Address family (high nibble of byte 14): AF_UNSPEC, AF_INET, AF_INET6, AF_UNIX. INET addresses take 12 bytes, INET6 36. */
const FAMILY = { UNSPEC: 0, INET: 1, INET6: 2, UNIX: 3 } as const;

/** 2.2: signature, version 2 and a command (LOCAL 0, PROXY 1), family and transport, length, addresses, then TLVs. */
function parseV2(buffer: Buffer): ProxyHeaderParse {
  if (buffer.length < V2_FIXED_LENGTH) return INCOMPLETE;
  const version = buffer[12] >> 4;
  const command = buffer[12] & 0x0f;
  const family = buffer[13] >> 4;
  const transport = buffer[13] & 0x0f;
  const length = V2_FIXED_LENGTH + buffer.readUInt16BE(14);
  // "The receiver must only accept [version 2]"; other commands, families and transports "must" drop the connection.
  if (version !== 2) return { error: `PROXY v2 header of version ${version}` };
  if (command > 1) return { error: `PROXY v2 command ${command} is neither LOCAL nor PROXY` };
  if (family > FAMILY.UNIX || transport > 2) return { error: 'PROXY v2 family or transport unknown' };
  if (buffer.length < length) return INCOMPLETE;
  // LOCAL: the balancer's own connection (a health check); the addresses, if any, are to be ignored.
  if (command === 0 || family === FAMILY.UNSPEC || family === FAMILY.UNIX) return { header: { kind: 'local' }, length };
  const addresses = buffer.subarray(V2_FIXED_LENGTH, length);
  if (addresses.length < (family === FAMILY.INET ? 12 : 36)) return { error: 'PROXY v2 header too short for its addresses' };
  const source: ProxiedSource =
    family === FAMILY.INET
      ? { address: [...addresses.subarray(0, 4)].join('.'), port: addresses.readUInt16BE(8), family: 'IPv4' }
      : { address: ipv6Text(addresses.subarray(0, 16)), port: addresses.readUInt16BE(32), family: 'IPv6' };
  // What follows the addresses (TLVs: ALPN, authority, CRC32c, TLS details) is skipped: nothing here needs it.
  return { header: { kind: 'proxied', source }, length };
}

function ipv6Text(bytes: Buffer): string {
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  return canonicalIpv6(groups.join(':'));
}

/** The short form Node gives sockets' addresses (`::1`, `2001:db8::7`), so a throttle keys one address one way. */
const canonicalIpv6 = (address: string) => new URL(`http://[${address}]/`).hostname.slice(1, -1);
