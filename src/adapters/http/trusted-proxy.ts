import type Koa from 'koa';
import proxyaddr from 'proxy-addr';

/**
 * Which proxies in front of the service are trusted to name the client in `X-Forwarded-For`
 * (PLANT_STORE_TRUST_PROXY): the last `hops` entries, or whatever peers (and entries) are among
 * `addresses` (addresses, CIDR ranges, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = { readonly hops: number } | { readonly addresses: readonly string[] };

/** The compiled test of an address list; throws TypeError on an entry that is not an address. */
export const compileTrust = (addresses: readonly string[]) => proxyaddr.compile([...addresses]);

/**
 * Whether a peer is a trusted proxy, carrying many clients (exempt from the per-address connection
 * bound). Only an address list names proxies; a hop count does not say where they are.
 */
export function trustedPeer(trust: TrustProxy | undefined) {
  if (trust === undefined || !('addresses' in trust)) return undefined;
  const trusted = compileTrust(trust.addresses);
  return (address: string) => trusted(address, 0);
}

/**
 * Makes `ctx.ip` the client's address. A hop count is Koa's own `app.proxy` and `app.maxIpsCount`;
 * an address list, which Koa cannot express, is the middleware returned: proxy-addr walks
 * `X-Forwarded-For` leftwards from a trusted peer; the first untrusted address is the client.
 */
export function trustProxy(app: Koa, trust: TrustProxy): Koa.Middleware | undefined {
  if ('hops' in trust) {
    app.proxy = true;
    app.maxIpsCount = trust.hops;
    return undefined;
  }
  const trusted = compileTrust(trust.addresses);
  return (ctx, next) => {
    const peer = ctx.req.socket.remoteAddress;
    if (peer !== undefined && trusted(peer, 0)) ctx.request.ip = proxyaddr(ctx.req, trusted);
    return next();
  };
}
