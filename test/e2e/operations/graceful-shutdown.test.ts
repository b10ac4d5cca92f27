import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { decodeMember } from '../../../src/adapters/storage/redis/redis-plant-codec.js';
import { serverMissing } from '../../support/server-requirement.js';
import { startRedisServer } from '../../support/redis-server.js';
import { RawClient } from '../../support/raw-client.js';
import { startService } from '../../support/service-process.js';

const TOKEN = 'shutdown-token-0123456789';
const CONNECTIONS = 50;

/** What one keep-alive connection saw while it posted creates back to back. */
interface Outcome {
  acknowledged: bigint[];
  /** A create written and neither answered nor refused: the connection closed under it. */
  unanswered: bigint | undefined;
  /** The socket error, if any (ECONNRESET: a reset). */
  error: string | undefined;
  /** Whether the last answer said `Connection: close`. */
  toldToClose: boolean;
}

/**
 * Posts creates on one keep-alive connection, each as soon as the previous is answered, until the
 * server says `Connection: close` or closes the connection.
 */
function postBackToBack(port: number, first: bigint): Promise<Outcome> {
  const outcome: Outcome = {
    acknowledged: [],
    unanswered: undefined,
    error: undefined,
    toldToClose: false,
  };
  const socket: Socket = connect({ port, host: '127.0.0.1' });
  let id = first;
  let received = '';
  const post = () => {
    const body = `{"id":${id},"name":"p"}`;
    outcome.unanswered = id;
    socket.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  };
  socket.on('connect', post);
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    const end = received.indexOf('\r\n\r\n');
    if (end === -1) return;
    const head = received.slice(0, end);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (received.length < end + 4 + length) return;
    received = received.slice(end + 4 + length);
    expect(head).to.match(/^HTTP\/1\.1 20[01] /);
    outcome.acknowledged.push(id);
    outcome.unanswered = undefined;
    id++;
    if (/\r\nconnection: *close/i.test(head)) {
      outcome.toldToClose = true;
      socket.end();
    } else post();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => (outcome.error ??= error.code));
  socket.on('end', () => socket.end());
  return once(socket, 'close').then(() => outcome);
}

/** An answer after which the server closes the connection. */
const CLOSES = /\r\nConnection: close\r\n/i;

/**
 * Asks /readyz on `client`'s keep-alive connection, again as soon as each answer is 200 and keeps
 * the connection, until one is not or says `Connection: close`: the signal reaches the process at
 * a moment no test controls (a loaded machine can take longer than any fixed wait), and until it
 * has taken it readiness still holds. A probe under way when the signal comes is answered as it
 * was computed (200), with `Connection: close`. Resolves every status and the last answer's text.
 */
async function readinessUntilRefused(
  client: RawClient,
): Promise<{ statuses: number[]; last: string }> {
  const statuses: number[] = [];
  let seen = 0;
  for (;;) {
    client.send('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
    // Each answer is one JSON object: complete once the text ends with its closing brace.
    while (!(client.text.length > seen && client.text.endsWith('}'))) {
      if (client.socket.destroyed || client.socket.readableEnded) break;
      await Promise.race([once(client.socket, 'data'), client.ended]);
    }
    const last = client.text.slice(seen);
    seen = client.text.length;
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(last)?.[1]);
    statuses.push(status);
    if (status !== 200 || CLOSES.test(last)) return { statuses, last };
  }
}

const TOKENS = JSON.stringify([
  { token: TOKEN, tenant: 'drain', scopes: ['plants:read', 'plants:write'] },
]);

/**
 * Starts the service with `env`, has 50 keep-alive connections post creates back to back, sends
 * SIGTERM after 1.5 s, asks /readyz on a connection opened before it, and checks that nothing
 * was reset and every create written was answered. Resolves the acknowledged ids.
 */
async function drainUnderLoad(env: Record<string, string>): Promise<bigint[]> {
  const service = await startService({ ...env, PLANT_STORE_TOKENS: TOKENS });
  try {
    const { port } = service;
    const readiness = await RawClient.open(port);
    const runs = Array.from({ length: CONNECTIONS }, (_, i) =>
      postBackToBack(port, BigInt(i) * 1_000_000n + 1n),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const exited = service.stop();
    // Asked on a connection opened before the signal: once the process has it, readiness fails
    // at once (200 until then).
    const { statuses, last: ready } = await readinessUntilRefused(readiness);
    const outcomes = await Promise.all(runs);
    expect(await exited).to.equal(0);

    readiness.destroy();
    expect(readiness.error).to.equal(undefined);
    expect(statuses.slice(0, -1).every((status) => status === 200)).to.equal(true);
    // Readiness refused once the signal is taken (or the probe under way then told to close).
    expect(ready).to.match(CLOSES);
    if (!ready.startsWith('HTTP/1.1 200 ')) {
      expect(ready).to.match(/^HTTP\/1\.1 503 /);
      expect(ready).to.include('"error":50304');
    }
    const errors = outcomes.filter((o) => o.error !== undefined).map((o) => o.error);
    expect(errors, 'socket errors').to.deep.equal([]);
    const acknowledged = outcomes.flatMap((o) => o.acknowledged);
    expect(acknowledged.length).to.be.above(CONNECTIONS);
    // Each connection posts again as soon as it is answered, so none is idle when the signal
    // comes: each gets its last answer with `Connection: close`, no create is left unanswered.
    expect(outcomes.filter((o) => o.toldToClose)).to.have.length(CONNECTIONS);
    expect(outcomes.filter((o) => o.unanswered !== undefined)).to.deep.equal([]);
    return acknowledged;
  } finally {
    await service.kill();
  }
}

describe('graceful shutdown (a service process, raw sockets)', function () {
  this.timeout(60_000);

  it('when SIGTERM arrives while 50 keep-alive connections post creates back to back on memory, then /readyz answers 503 at once, every written create is answered (the last with Connection: close) and none is reset', async () => {
    await drainUnderLoad({ PLANT_STORE_RATE_LIMIT: '0' });
  });

  describe('on Redis', () => {
    let close: (() => Promise<void>) | undefined;
    let url = '';
    before(async function () {
      const started = await startRedisServer();
      if (typeof started === 'string') return serverMissing(this, 'Redis', started);
      ({ close } = started);
      url = started.server.url;
    });
    after(async () => {
      await close?.();
    });

    it('when SIGTERM arrives while 50 keep-alive connections post creates back to back, then every written create is answered, none is reset, and the acknowledged ones are exactly the stored ones', async () => {
      const acknowledged = await drainUnderLoad({
        PLANT_STORE_STORAGE: 'redis',
        REDIS_URL: url,
        PLANT_STORE_RATE_LIMIT: '0',
      });

      const redis = new Redis(url);
      try {
        const members = await redis.zrange('plant-store:{ZHJhaW4}:plants', '0', '-1');
        const stored = members.map((member) => decodeMember(member).id);
        const order = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
        expect(stored.sort(order)).to.deep.equal(acknowledged.sort(order));
      } finally {
        redis.disconnect();
      }
    });
  });
});

describe('logging to a full disk (stdout redirected to a file on a full tmpfs)', function () {
  this.timeout(60_000);
  const mount = `/tmp/plant-store-full-stdout-${randomUUID()}`;
  before(() => {
    mkdirSync(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount]);
    // Filled to the last byte: every write of the service's stdout fails with ENOSPC.
    try {
      writeFileSync(`${mount}/fill`, Buffer.alloc(1 << 20));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).to.equal('ENOSPC');
    }
  });
  after(() => {
    // Lazily: a process of a failed test may still hold its stdout there.
    execFileSync('umount', ['--lazy', mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  it('when every log line fails to be written, then requests are still answered and SIGTERM ends the process within its grace period', async () => {
    const service = await startService(
      { LOG_LEVEL: 'info', PLANT_STORE_TOKENS: TOKENS, PLANT_STORE_SHUTDOWN_GRACE_SECONDS: '2' },
      undefined,
      { prefix: ['sh', '-c', `exec "$0" "$@" > ${mount}/stdout.log`] },
    );
    try {
      // An access line each, and 64 KB of names logged nowhere: each write fails.
      for (let id = 1; id <= 200; id++) {
        const response = await fetch(`http://127.0.0.1:${service.port}/plants`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ id, name: `plant ${id}` }),
          signal: AbortSignal.timeout(5000),
        });
        expect(response.status).to.equal(200);
      }
      const started = Date.now();
      expect(await service.stop(), 'exit code (null: killed after 5 s)').to.equal(0);
      expect(Date.now() - started).to.be.below(2000 + 1000);
    } finally {
      await service.kill();
    }
  });
});
