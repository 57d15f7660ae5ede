import { BlockList, isIP } from 'node:net';

/**
 * Address ranges that are not the public internet (IANA special-purpose registries, RFC 6890 and successors):
 * loopback, private, shared (CGNAT), link-local, documentation, benchmarking, multicast, reserved, and the IPv6
 * forms that carry or reach IPv4 (compatible `::/96` with `::` and `::1`, NAT64, 6to4, Teredo; mapped ones are
 * checked as IPv4). A webhook may reach them only when allow-listed.
 */
const NON_PUBLIC: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.88.99.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 96, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001::', 23, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['2002::', 16, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const nonPublic = new BlockList();
for (const [network, prefix, type] of NON_PUBLIC) nonPublic.addSubnet(network, prefix, type);

/**
 * `[::1]` (a URL's hostname) -> `::1`; an IPv4-mapped address (`::ffff:10.0.0.1`, `::ffff:a00:1`) -> `10.0.0.1`,
 * so that IPv4 rules apply to it. (net.BlockList matches IPv4 addresses against `::ffff:0:0/96` rules, so mapped
 * addresses are not listed as a range of their own.)
 */
export function normalizeAddress(address: string): string {
  const bare = (address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address).toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return bare;
}

/** Why an entry of WEBHOOK_ALLOW_HOSTS is unusable, or undefined: a host name, an IP address or a CIDR range. */
export function allowEntryProblem(entry: string): string | undefined {
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (cidr) {
    const version = isIP(normalizeAddress(cidr[1]));
    if (version === 0) return `${entry}: not an IP range`;
    return Number(cidr[2]) > (version === 4 ? 32 : 128) ? `${entry}: prefix too long` : undefined;
  }
  if (isIP(normalizeAddress(entry)) !== 0) return undefined;
  return /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/i.test(entry)
    ? undefined
    : `${entry}: not a host name, an IP address or an IP range`;
}

export interface AddressGuard {
  /** Why a webhook may not connect to `address` (an IP) of host `hostname`, or undefined when it may. */
  refusal(hostname: string, address: string): string | undefined;
  /** Why a webhook may not go to `hostname` whatever it resolves to (a non-public IP literal, `localhost`), or undefined. */
  hostRefusal(hostname: string): string | undefined;
}

/**
 * The SSRF guard of webhooks (issue 5 §4): every address a webhook connects to must be public, unless the operator
 * allow-lists it in WEBHOOK_ALLOW_HOSTS by host name (any address of that host), IP address or CIDR range.
 */
export function createAddressGuard(allowEntries: readonly string[]): AddressGuard {
  const allowedRanges = new BlockList();
  const allowedHosts = new Set<string>();
  for (const entry of allowEntries) {
    const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
    const address = normalizeAddress(cidr ? cidr[1] : entry);
    const version = isIP(address);
    if (version === 0) allowedHosts.add(entry.toLowerCase());
    else if (cidr) allowedRanges.addSubnet(address, Number(cidr[2]), version === 4 ? 'ipv4' : 'ipv6');
    else allowedRanges.addAddress(address, version === 4 ? 'ipv4' : 'ipv6');
  }
  const allowedAddress = (address: string, version: 4 | 6) => allowedRanges.check(address, version === 4 ? 'ipv4' : 'ipv6');

  function refusal(hostname: string, rawAddress: string): string | undefined {
    if (allowedHosts.has(normalizeAddress(hostname))) return undefined;
    const address = normalizeAddress(rawAddress);
    const version = isIP(address);
    if (version === 0) return `${rawAddress} is not an IP address`;
    if (allowedAddress(address, version as 4 | 6)) return undefined;
    if (nonPublic.check(address, version === 4 ? 'ipv4' : 'ipv6')) {
      return `${address} is not a public address (loopback, private, link-local or reserved); allow it with WEBHOOK_ALLOW_HOSTS`;
    }
    return undefined;
  }

  return {
    refusal,
    hostRefusal(hostname) {
      const host = normalizeAddress(hostname);
      if (isIP(host) !== 0) return refusal(host, host);
      if (allowedHosts.has(host)) return undefined;
      if (host === 'localhost' || host.endsWith('.localhost')) {
        return `${host} is a loopback name; allow it with WEBHOOK_ALLOW_HOSTS`;
      }
      return undefined;
    },
  };
}
