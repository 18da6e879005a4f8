// Whether an IP address is on the public internet. Webhook deliveries go
// only to public addresses (behaviour.md section 11; the sandbox's
// exceptions are in webhook-address-rule.ts), so a merchant cannot make
// Payrail call its own loopback, the private network it runs in or a cloud
// metadata service. Checked against the address a name resolves to, at
// connection time (webhook-sender.ts), so a name that resolves elsewhere
// later (DNS rebinding) is caught too.
//
// The lists are IANA's IPv4 and IPv6 Special-Purpose Address Registries
// (RFC 6890 and its updates), whole: every entry is refused, including the
// few the registry marks globally reachable (anycast and AS112 services are
// never a merchant's receiver). Multicast and the reserved 240/4 are added;
// an IPv6 address must also be global unicast (2000::/3). An address that
// embeds an IPv4 address (IPv4-mapped, IPv4-translated, 6to4, the NAT64
// well-known prefix) is judged by the IPv4 address it carries, which is
// where a connection to it ends up. Node's own parser (net.BlockList, URL)
// reads the addresses, so no text form (compressed, dotted tail, zone) can
// slip past a hand-written pattern.
import net from 'node:net';

/** IANA IPv4 Special-Purpose Address Registry, plus multicast and the limited broadcast. */
const IPV4_SPECIAL: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network" (RFC 791)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback (RFC 1122)
  ['169.254.0.0', 16], // link-local, cloud metadata services (RFC 3927)
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments, DS-Lite, NAT64 discovery (RFC 6890, 7600, 8880)
  ['192.0.2.0', 24], // documentation TEST-NET-1 (RFC 5737)
  ['192.31.196.0', 24], // AS112-v4 (RFC 7535)
  ['192.52.193.0', 24], // AMT (RFC 7450)
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast (RFC 7526)
  ['192.168.0.0', 16], // private (RFC 1918)
  ['192.175.48.0', 24], // direct delegation AS112 service (RFC 7534)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation TEST-NET-2 (RFC 5737)
  ['203.0.113.0', 24], // documentation TEST-NET-3 (RFC 5737)
  ['224.0.0.0', 4], // multicast (RFC 5771)
  ['240.0.0.0', 4], // reserved (RFC 1112), with 255.255.255.255/32 limited broadcast (RFC 919)
];

/** IANA IPv6 Special-Purpose Address Registry entries inside 2000::/3 (everything outside it is refused anyway). */
const IPV6_SPECIAL_GLOBAL: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo, PCP/TURN anycast, benchmarking, AMT, AS112, ORCHIDv2, drone ids (RFC 2928 and others)
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['2620:4f:8000::', 48], // direct delegation AS112 service (RFC 7534)
  ['3fff::', 20], // documentation (RFC 9637)
];

const ipv4Special = new net.BlockList();
for (const [address, prefix] of IPV4_SPECIAL) ipv4Special.addSubnet(address, prefix, 'ipv4');
const ipv6Special = new net.BlockList();
for (const [address, prefix] of IPV6_SPECIAL_GLOBAL) ipv6Special.addSubnet(address, prefix, 'ipv6');
// Everything the registry lists outside 2000::/3 (::/128, ::1/128, ::/96, ::ffff:0:0/96, 64:ff9b::/96,
// 64:ff9b:1::/48, 100::/64, 100:0:0:1::/64, 5f00::/16, fc00::/7, fe80::/10, ff00::/8) fails this test.
const GLOBAL_UNICAST = new net.BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** The eight 16-bit groups of an IPv6 address, read by the WHATWG URL parser (which writes it back canonical); null when not one. */
export function ipv6Groups(address: string): number[] | null {
  const bare = address.replace(/%.*$/, '');
  if (net.isIPv6(bare) === false) return null;
  let canonical: string;
  try {
    canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head = '', tail] = canonical.split('::');
  const words = (text: string | undefined) => (text === undefined || text === '' ? [] : text.split(':').map((group) => Number.parseInt(group, 16)));
  const front = words(head);
  const back = words(tail);
  if (tail === undefined) return front.length === 8 ? front : null;
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 address an IPv6 address carries where a connection to it ends up
 * there: IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96),
 * NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16); null for
 * any other address.
 */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (g === null) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((word) => word === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dotted(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dotted(g[6]!, g[7]!);
  if (g[0] === 0x2002) return dotted(g[1]!, g[2]!);
  return null;
}

/** True when `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address.replace(/%.*$/, ''));
  if (family === 4) return !ipv4Special.check(address, 'ipv4');
  if (family !== 6) return false;
  const carried = embeddedIpv4(address);
  if (carried !== null) return isPublicAddress(carried);
  const bare = address.replace(/%.*$/, '');
  return GLOBAL_UNICAST.check(bare, 'ipv6') && !ipv6Special.check(bare, 'ipv6');
}

/** True for a loopback address: 127.0.0.0/8, ::1, or an IPv4-mapped 127.x. */
export function isLoopbackAddress(address: string): boolean {
  const family = net.isIP(address.replace(/%.*$/, ''));
  if (family === 4) return address.startsWith('127.');
  if (family !== 6) return false;
  const g = ipv6Groups(address);
  if (g === null) return false;
  if (g.slice(0, 7).every((word) => word === 0) && g[7] === 1) return true;
  return g.slice(0, 5).every((word) => word === 0) && g[5] === 0xffff && g[6]! >> 8 === 127;
}
