// The executable of the service: `node dist/main.js` is `plant-store serve` with no arguments
// (configuration from the environment, docs/operations.md). The CLI (src/cli.ts) has the rest.
import { consoleIo, runCli } from './cli/run-cli.js';
import { openTokenAdministration } from './composition/open-token-administration.js';
import { openWebhookAdministration } from './composition/open-webhook-administration.js';
import { serve } from './composition/serve.js';

process.exitCode = await runCli(['serve'], process.env, consoleIo, {
  serve,
  openTokenAdministration,
  openWebhookAdministration,
});
