#!/usr/bin/env node
// The `plant-store` command: `serve` goes to src/composition/serve.ts; `tokens`, `webhooks`,
// `export` and `import` to what they use, each resolved from the container's modules.
import { consoleIo, runCli } from './cli/run-cli.js';

// Loaded on demand, so that `--help` and a bad command line load neither Koa nor inversify, and
// the other commands load no Koa.
const administration = () => import('./composition/open-administration.js');

process.exitCode = await runCli(process.argv.slice(2), process.env, consoleIo, {
  serve: async (config, options) => (await import('./composition/serve.js')).serve(config, options),
  openTokenAdministration: async (config) =>
    (await administration()).openTokenAdministration(config),
  openWebhookAdministration: async (config) =>
    (await administration()).openWebhookAdministration(config),
  openPlantStore: async (config) => (await administration()).openPlantStore(config),
});
