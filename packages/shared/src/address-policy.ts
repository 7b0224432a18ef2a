import ipaddr from 'ipaddr.js';

// The private-address policy (docs/render.md#private-network-policy), shared by the
// render service's browser proxy and the forms server's webhook and push delivery.
//
// Addresses are classified after parsing, never by string matching, and IPv6 spellings that embed
// an IPv4 address (IPv4-mapped, IPv4-translated, NAT64, 6to4) are judged by the address they embed.
// We keep our own table of ranges (instead of ipaddr.js's range names) so that a refusal can name
// the exact CIDR, and so that the list is visible in one place.

type Range = readonly [cidr: string, name: string];

const V4_REFUSED: readonly Range[] = [
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
];

const V6_REFUSED: readonly Range[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

// IPv6 prefixes whose low bits spell an IPv4 address: [prefix, bit offset of the IPv4 address].
const V6_EMBEDDING: readonly (readonly [cidr: string, name: string, offset: number])[] = [
  ['::ffff:0:0/96', 'IPv4-mapped', 96],
  ['::ffff:0:0:0/96', 'IPv4-translated', 96],
  ['64:ff9b::/96', 'NAT64', 96],
  ['2002::/16', '6to4', 16],
];

const parsedV4 = V4_REFUSED.map(
  ([cidr, name]) => [ipaddr.IPv4.parseCIDR(cidr), cidr, name] as const,
);
const parsedV6 = V6_REFUSED.map(
  ([cidr, name]) => [ipaddr.IPv6.parseCIDR(cidr), cidr, name] as const,
);
const parsedEmbedding = V6_EMBEDDING.map(
  ([cidr, name, offset]) => [ipaddr.IPv6.parseCIDR(cidr), name, offset] as const,
);
const globalUnicastV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** A refused address: `range` reads like `loopback 127.0.0.0/8`. */
export interface RefusedRange {
  range: string;
}

function v4At(v6: ipaddr.IPv6, bitOffset: number): ipaddr.IPv4 {
  const bytes = v6.toByteArray().slice(bitOffset / 8, bitOffset / 8 + 4);
  return new ipaddr.IPv4(bytes);
}

function classifyV4(v4: ipaddr.IPv4): RefusedRange | null {
  for (const [cidr, text, name] of parsedV4) {
    if (v4.match(cidr)) return { range: `${name} ${text}` };
  }
  return null;
}

function classifyV6(v6: ipaddr.IPv6): RefusedRange | null {
  for (const [cidr, name, offset] of parsedEmbedding) {
    if (v6.match(cidr)) {
      const inner = classifyV4(v4At(v6, offset));
      return inner && { range: `${name} spelling of ${inner.range}` };
    }
  }
  for (const [cidr, text, name] of parsedV6) {
    if (v6.match(cidr)) return { range: `${name} ${text}` };
  }
  if (!v6.match(globalUnicastV6)) return { range: 'reserved (outside 2000::/3)' };
  return null;
}

/** Strips URL brackets and an IPv6 zone id (`[fe80::1%eth0]` → `fe80::1`). */
function bareAddress(address: string): string {
  return address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

/** True when `address` is an IP address literal in any spelling ipaddr.js accepts. */
export function isIpLiteral(address: string): boolean {
  return ipaddr.isValid(bareAddress(address));
}

/**
 * The refused range `address` falls in, or null for a public address. Anything that does not
 * parse as an address is refused: the policy fails closed.
 */
export function classifyAddress(address: string): RefusedRange | null {
  const bare = bareAddress(address);
  if (!ipaddr.isValid(bare)) return { range: 'not an IP address' };
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv4'
    ? classifyV4(parsed as ipaddr.IPv4)
    : classifyV6(parsed as ipaddr.IPv6);
}

/** Canonical text of an IP literal (`0x7f000001` → `127.0.0.1`), for messages and connects. */
export function canonicalAddress(address: string): string {
  return ipaddr.parse(bareAddress(address)).toString();
}
