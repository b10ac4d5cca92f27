#!/usr/bin/env node
// The `plant-store` command: `serve` goes to src/composition/serve.ts, `tokens` and `webhooks` to
// their administration, `export` and `import` to the configured plant store.
import { consoleIo, runCli } from './cli/run-cli.js';
import { openTokenAdministration } from './composition/open-token-administration.js';
import { openWebhookAdministration } from './composition/open-webhook-administration.js';
import { openPlantStore } from './composition/open-plant-store.js';

process.exitCode = await runCli(process.argv.slice(2), process.env, consoleIo, {
  // Loaded only to serve: the token commands need neither Koa nor the container.
  serve: async (config, options) => (await import('./composition/serve.js')).serve(config, options),
  openTokenAdministration,
  openWebhookAdministration,
  openPlantStore,
});
