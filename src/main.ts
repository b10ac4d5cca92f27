// The service's executable: `node dist/main.js` is `plant-store serve` (src/cli.ts has the rest).
import { consoleIo, runCli } from './cli/run-cli.js';
import { openTokenAdministration } from './composition/open-administration.js';
import { serve } from './composition/serve.js';

process.exitCode = await runCli(['serve'], process.env, consoleIo, {
  serve,
  openTokenAdministration,
});
