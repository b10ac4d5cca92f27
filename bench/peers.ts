// The peers: what a team would otherwise build, with the service's per-request features (bearer
// lookup by SHA-256 digest, request id, one access line, a duration histogram per route). The NestJS
// ones are compiled by tsc (`npm run bench:peers`), which emits the metadata Nest injects by; the
// Fastify one runs through tsx like the references. bench/run.ts measures them and
// test/bench/peers.test.ts checks that they answer as the service does.

export const NEST_BUILD = 'bench/build/servers/nest';

export interface PeerServer {
  key: string;
  label: string;
  nodeArgs: string[];
}

export const PEER_SERVERS: PeerServer[] = [
  { key: 'nest-express', label: 'NestJS (Express)', nodeArgs: [`${NEST_BUILD}/main-express.js`] },
  { key: 'nest-fastify', label: 'NestJS (Fastify)', nodeArgs: [`${NEST_BUILD}/main-fastify.js`] },
  {
    key: 'fastify-features',
    label: 'Fastify + features',
    nodeArgs: ['--import', 'tsx', 'bench/servers/fastify-features.ts'],
  },
];

/** The NestJS peers, whose best is the service's target (`bench-peers`). */
export const NEST_KEYS = ['nest-express', 'nest-fastify'];
