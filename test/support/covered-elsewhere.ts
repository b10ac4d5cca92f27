/**
 * Source files with no unit test of their own name (test/unit/<path>.test.ts), and the suite that
 * covers them instead: a path under src/, or a folder ending in `/` for all such files in it.
 * Files that hold only types need no entry. test/unit/architecture.test.ts checks that every
 * covering file exists and that every entry still names a file without its own test.
 */
export const COVERED_ELSEWHERE: Readonly<Record<string, readonly string[]>> = {
  'adapters/auth/': ['test/contract/http/token-matrix.http.test.ts'],
  'adapters/config-error.ts': ['test/unit/config/index.test.ts'],
  'adapters/http/': ['test/contract/http/memory.http.test.ts', 'test/contract/http/fuzz.test.ts'],
  'adapters/http/docs/': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/server/': [
    'test/e2e/http/connection-slots.test.ts',
    'test/e2e/http/closing-connections.test.ts',
    'test/e2e/http/output-and-connections.test.ts',
    'test/e2e/http/pipelined-answers.test.ts',
    'test/e2e/http/protocol-answers.test.ts',
  ],
  'adapters/limits/': ['test/contract/limits/keyed-limiter.test.ts'],
  'adapters/storage/': [
    'test/contract/storage/plant-store.test.ts',
    'test/contract/storage/token-store.test.ts',
    'test/contract/storage/webhook-outbox.test.ts',
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/e2e/operations/outage-reports.test.ts',
  ],
  'adapters/telemetry/': [
    'test/e2e/operations/observability.test.ts',
    'test/e2e/operations/workers-metrics.test.ts',
  ],
  'adapters/transfer/': ['test/unit/application/plant-import.test.ts'],
  'adapters/webhooks/': ['test/e2e/webhooks/webhook-delivery.test.ts'],
  'application/': ['test/e2e/cli/plant-transfer.cli.test.ts', 'test/e2e/cli/tokens.cli.test.ts'],
  'cli.ts': ['test/e2e/cli/cli-arguments.test.ts'],
  'cli/': ['test/e2e/cli/cli-arguments.test.ts', 'test/e2e/cli/tokens.cli.test.ts'],
  'cli/backup-command.ts': ['test/e2e/storage/lmdb-program.test.ts'],
  'client/': ['test/e2e/client/client-memory.test.ts', 'test/contract/client-surface.test.ts'],
  'composition/': [
    'test/e2e/embedding/container-wiring.test.ts',
    'test/e2e/operations/main.test.ts',
  ],
  'config/': ['test/unit/config/index.test.ts'],
  'core.ts': ['test/contract/core-input.test.ts', 'test/e2e/embedding/core-import.test.ts'],
  'domain/': [
    'test/unit/application/plant-service.test.ts',
    'test/contract/storage/plant-store.test.ts',
  ],
  'index.ts': ['test/e2e/embedding/embedding.test.ts'],
  'main.ts': ['test/e2e/operations/main.test.ts'],
  // Ports are types, save the method lists the store decorators are built from.
  'ports/': [
    'test/unit/ports/port-methods.test.ts',
    'test/unit/adapters/telemetry/observed-store.test.ts',
  ],
};
