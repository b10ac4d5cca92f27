#!/usr/bin/env node
// The `plant-store` command. The composition is loaded on demand: `--help` and a bad command line
// load neither Koa nor inversify, and only `serve` loads Koa.
import { consoleIo, runCli } from './cli/run-cli.js';

const administration = () => import('./composition/open-administration.js');

// A reader that closes early (`plant-store config | head -3`) ends the command without a stack,
// with the status a shell gives a process its closed pipe ended (128 + SIGPIPE): not success.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(141);
});

process.exitCode = await runCli(process.argv.slice(2), process.env, consoleIo, {
  serve: async (config, options) => (await import('./composition/serve.js')).serve(config, options),
  openTokenAdministration: async (config) =>
    (await administration()).openTokenAdministration(config),
  openWebhookAdministration: async (config) =>
    (await administration()).openWebhookAdministration(config),
  openPlantStore: async (config) => (await administration()).openPlantStore(config),
});
