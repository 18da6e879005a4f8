// The key a client's address is counted under for sign-in lock-out. An IPv4
// address is its own key; an IPv6 client usually holds a whole /64 and can
// pick a new address in it for every request, so IPv6 addresses are counted
// per /64 prefix. IPv4 written as IPv6 (::ffff:192.0.2.1) counts as IPv4.

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
/** Longest address text looked at; anything longer is not an address and shares one key. */
const ADDRESS_LENGTH_MAX = 64;

/** Expands "2001:db8::1" to its eight groups; null when the text is not IPv6. */
function ipv6Groups(text: string): string[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const tail = halves.length === 2 && halves[1] !== '' ? halves[1]!.split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => '0'), ...tail];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return groups.map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

/** The last address keyed: every request is keyed twice (rate limit, lock-out) and most come from a few addresses. */
let lastAddress: string | null = null;
let lastKey = '';

export function addressKey(address: string): string {
  if (address !== lastAddress) {
    lastKey = keyOf(address);
    lastAddress = address;
  }
  return lastKey;
}

function keyOf(address: string): string {
  const text = address.slice(0, ADDRESS_LENGTH_MAX).split('%')[0]!;
  const mapped = IPV4_MAPPED.exec(text);
  if (mapped !== null) return mapped[1]!;
  if (!text.includes(':')) return text;
  const groups = ipv6Groups(text);
  return groups === null ? text : `${groups.slice(0, 4).join(':')}::/64`;
}
