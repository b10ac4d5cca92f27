import { BlockList, isIP } from 'node:net';

// Everything that is not the public Internet: loopback, private, shared, link-local, multicast,
// reserved, documentation and translation ranges (IANA special-purpose registries).
const PRIVATE_V4 =
  '0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 192.0.0.0/24 ' +
  '192.0.2.0/24 192.88.99.0/24 192.168.0.0/16 198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 224.0.0.0/3';
// `::/96`: IPv4-compatible (RFC 4291), `::` and `::1` too, so that `[::127.0.0.1]` and
// `[::a9fe:a9fe]` (169.254.169.254) are not public IPv6; BlockList checks IPv4-mapped ones against
// the IPv4 ranges. `::ffff:0:0:0/96`: IPv4-translated (RFC 6145). `fec0::/10`: site-local,
// deprecated (RFC 3879) but still routed in some networks.
const PRIVATE_V6 =
  '::/96 ::ffff:0:0:0/96 64:ff9b::/96 64:ff9b:1::/48 100::/64 2001::/23 2001:db8::/32 2002::/16 ' +
  '3fff::/20 5f00::/16 fc00::/7 fe80::/10 fec0::/10 ff00::/8';

const blocked = new BlockList();
for (const range of `${PRIVATE_V4} ${PRIVATE_V6}`.split(' ')) {
  const [network, prefix] = range.split('/') as [string, string];
  blocked.addSubnet(network, Number(prefix), isIP(network) === 4 ? 'ipv4' : 'ipv6');
}

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** Whether an IP address is anything but a public unicast address (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = MAPPED_V4.exec(address)?.[1];
  if (mapped !== undefined) return isPrivateAddress(mapped);
  const family = isIP(address);
  if (family === 0) return true;
  // Other IPv4-mapped forms (hex) are refused outright.
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why a receiver URL may not be used, or undefined when it may. The sender asks again before each
 * delivery (a subscription stored before a rule was added is held to it); host names are checked
 * again at each connection, address by address.
 */
export function checkReceiverUrl(text: string, allowPrivate: boolean): string | undefined {
  const url = URL.parse(text);
  if (url === null) return 'the URL must be absolute, such as https://example.com/hooks';
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return 'the URL must use https (http needs PLANT_STORE_WEBHOOK_ALLOW_PRIVATE=true)';
  }
  if (url.username !== '' || url.password !== '') return 'the URL must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // `localhost.` is `localhost` to a resolver; an IPv4 literal's trailing dot the URL parser drops.
  if (host.endsWith('.')) return 'the URL host must not end with a dot';
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) {
    return 'the URL must not name a loopback host';
  }
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return 'the URL must not name a loopback, private or reserved address';
  }
  return undefined;
}
