import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { Config } from '../config.js';
import { buildContainer, TOKENS } from '../container.js';
import { answerClientError } from '../http/client-error.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** With no tokens and the memory store, a fresh token makes `npm start` usable at once. */
function withDevelopmentToken(config: Config): Config {
  if (config.tokens.length > 0 || config.storage.kind !== 'memory') return config;
  const token = `pst_dev_${randomBytes(24).toString('base64url')}`;
  console.log(
    `plant-store: no PLANT_STORE_TOKENS configured; development token for tenant "default" (plants:read plants:write):`,
  );
  console.log(`  export TOKEN=${token}`);
  return {
    ...config,
    tokens: [{ token, tenant: 'default', scopes: ['plants:read', 'plants:write'] }],
  };
}

/** Runs the service until SIGTERM or SIGINT, then drains requests, closes the stores and exits 0. */
export async function serve(loaded: Config): Promise<void> {
  const config = withDevelopmentToken(loaded);
  const { container, dispose } = await buildContainer(config);
  const logger = container.get(TOKENS.Logger);
  if (config.storage.kind === 'memory') {
    logger.info({ tokenFile: config.tokenFile }, 'managed tokens are read from the token file');
  }
  const app = await container.getAsync(TOKENS.HttpApp);
  const server = createServer(app.callback());
  server.on('clientError', answerClientError);
  server.listen(config.port, config.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    await dispose();
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`cannot listen on HOST ${config.host}, PORT ${config.port} (${reason})`, {
      cause: error,
    });
  }
  const { port } = server.address() as { port: number };
  logger.info({ host: config.host, port, storage: config.storage.kind }, 'listening');
  console.log(
    `plant-store: listening on http://${config.host}:${port} (storage: ${config.storage.kind})`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting, let in-flight requests finish, then close the store.
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    await closed;
    clearTimeout(force);
    await dispose();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
