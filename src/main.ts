// The executable behind `npm start`: the same as `plant-store serve`.
import { runCli } from './adapters/cli/run-cli.js';

process.exitCode = await runCli(['serve']);
