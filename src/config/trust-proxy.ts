import { compileTrust, type TrustProxy } from '../adapters/http/trusted-proxy.js';
import { ConfigError } from '../adapters/config-error.js';
import { parseList } from './parse.js';

/**
 * PLANT_STORE_TRUST_PROXY: off (unset, empty, `off`, `false`, `0`), a hop count (1 to 10), or a
 * comma-separated list of proxy addresses and CIDR ranges (`10.0.0.0/8, 192.168.1.7, loopback`).
 */
export function parseTrustProxy(text: string | undefined): TrustProxy | undefined {
  const value = (text ?? '').trim();
  if (['', 'off', 'false', '0'].includes(value.toLowerCase())) return undefined;
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) {
      throw new ConfigError(
        `PLANT_STORE_TRUST_PROXY must be a hop count from 1 to 10 (got "${value}")`,
      );
    }
    return { hops };
  }
  const addresses = parseList(value);
  try {
    compileTrust(addresses);
  } catch (error) {
    throw new ConfigError(
      `PLANT_STORE_TRUST_PROXY must be off, a hop count or a list of addresses and CIDR ranges (${(error as Error).message})`,
    );
  }
  return { addresses };
}
