import { isIPv6 } from 'node:net';

/**
 * Who a client is, for per-address bounds (failed authentications, connections): an IPv4 address, or the /64 network of an IPv6 one, since a single
 * host usually holds a whole /64 and could otherwise change address on every request.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return '';
  if (address.startsWith('::ffff:') && !isIPv6(address.slice(7))) return address.slice(7);
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const groups = head === '' ? [] : head.split(':');
  const rest = tail === '' ? [] : tail.split(':');
  const full = [...groups, ...Array(8 - groups.length - rest.length).fill('0'), ...rest];
  return `${full.slice(0, 4).join(':')}::/64`;
}
