// The executable of the service: `node dist/main.js` is `plant-store serve` with no arguments
// (configuration from the environment, docs/operations.md). The CLI (src/cli.ts) has the rest.
import { consoleIo, runCli } from './cli/run-cli.js';
import {
  openTokenAdministration,
  openWebhookAdministration,
} from './composition/open-administration.js';
import { serve } from './composition/serve.js';

process.exitCode = await runCli(['serve'], process.env, consoleIo, {
  serve,
  openTokenAdministration,
  openWebhookAdministration,
});
