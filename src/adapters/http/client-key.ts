import { isIPv6 } from 'node:net';

/** The eight groups of an IPv6 address, `::` expanded (an embedded IPv4 tail counts as its text). */
function ipv6Groups(address: string): string[] {
  const [head = '', tail = ''] = address.split('::');
  const groups = head === '' ? [] : head.split(':');
  const rest = tail === '' ? [] : tail.split(':');
  return [...groups, ...Array<string>(8 - groups.length - rest.length).fill('0'), ...rest];
}

const ipv4 = (address: string): boolean =>
  !address.includes(':') || (address.startsWith('::ffff:') && !isIPv6(address.slice(7)));

/**
 * Who a client is, for per-address bounds: an IPv4 address, or the /64 of an IPv6 one, since a
 * host usually holds a whole /64 and could otherwise change address on every request.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return '';
  if (ipv4(address)) return address.startsWith('::ffff:') ? address.slice(7) : address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The /56 of an IPv6 client (a site's usual allocation, 256 /64s), for a bound beside clientKey's; undefined for IPv4. */
export function networkKey(address: string | undefined): string | undefined {
  if (address === undefined || ipv4(address)) return undefined;
  const groups = ipv6Groups(address).map((group) => group.padStart(4, '0').toLowerCase());
  return `${groups.slice(0, 3).join(':')}:${groups[3]!.slice(0, 2)}00::/56`;
}
