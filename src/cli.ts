#!/usr/bin/env node
// The `plant-store` command: serve, and manage tokens. Everything else lives in adapters/cli.
import { runCli } from './adapters/cli/run-cli.js';

// `serve` resolves once listening and keeps running; the other commands end with their code.
process.exitCode = await runCli(process.argv.slice(2));
