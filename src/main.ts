import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { ConfigError, loadConfig, type Config } from './adapters/config.js';
import { buildContainer, TOKENS } from './adapters/container.js';
import { answerClientError } from './adapters/http/client-error.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** With no tokens and the memory store, a fresh token makes `npm start` usable at once. */
function withDevelopmentToken(config: Config): Config {
  if (config.tokens.length > 0 || config.storage.kind !== 'memory') return config;
  const token = `pst_dev_${randomBytes(24).toString('base64url')}`;
  console.log(
    `plant-store: PLANT_STORE_TOKENS is not set; development token for tenant "default" (plants:read plants:write):`,
  );
  console.log(`  export TOKEN=${token}`);
  return {
    ...config,
    tokens: [{ token, tenant: 'default', scopes: ['plants:read', 'plants:write'] }],
  };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = withDevelopmentToken(loadConfig());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`plant-store: ${error.message}`);
    process.exit(1);
  }

  const { container, dispose } = await buildContainer(config);
  const logger = container.get(TOKENS.Logger);
  if (config.tokens.length === 0)
    logger.warn({}, 'no static tokens configured: every /plants request will answer 401');
  const app = await container.getAsync(TOKENS.HttpApp);
  const server = createServer(app.callback());
  server.on('clientError', answerClientError);
  server.listen(config.port, config.host);
  await once(server, 'listening');
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

main().catch((error: unknown) => {
  console.error(
    `plant-store: failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
