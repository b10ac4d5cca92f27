import { isIPv6 } from 'node:net';

/** The eight groups of an IPv6 address, `::` expanded (an embedded IPv4 tail counts as its text). */
function ipv6Groups(address: string): string[] {
  const [head = '', tail = ''] = address.split('::');
  const groups = head === '' ? [] : head.split(':');
  const rest = tail === '' ? [] : tail.split(':');
  return [...groups, ...Array(8 - groups.length - rest.length).fill('0'), ...rest];
}

const mappedIPv4 = (address: string): boolean =>
  address.startsWith('::ffff:') && !isIPv6(address.slice(7));

/**
 * Who a client is, for per-address bounds (failed authentications, connections): an IPv4 address, or the /64 network of an IPv6 one, since a single
 * host usually holds a whole /64 and could otherwise change address on every request.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return '';
  if (mappedIPv4(address)) return address.slice(7);
  if (!address.includes(':')) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/**
 * The /56 network of an IPv6 client, for a bound beside clientKey's: one site is usually given a
 * /56 (256 /64s), so a bound per /64 alone lets it hold 256 times as much. Undefined for IPv4.
 */
export function networkKey(address: string | undefined): string | undefined {
  if (address === undefined || mappedIPv4(address) || !address.includes(':')) return undefined;
  const groups = ipv6Groups(address).map((group) => group.padStart(4, '0').toLowerCase());
  return `${groups.slice(0, 3).join(':')}:${groups[3]!.slice(0, 2)}00::/56`;
}
