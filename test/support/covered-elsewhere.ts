/**
 * Source files with no unit test of their own name (test/unit/<path>.test.ts), each with the
 * suites that cover it instead (a contract suite, or the real program end to end). Files that hold
 * only types need no entry. test/unit/architecture.test.ts checks that every source file has its
 * unit test or an entry here, that every covering suite exists, and that every entry still names
 * a source file without its own test: a new file is not covered until someone says by what.
 */
export const COVERED_ELSEWHERE: Readonly<Record<string, readonly string[]>> = {
  'adapters/auth/bounded-cache.ts': ['test/unit/adapters/auth/managed-token-verifier.test.ts'],
  'adapters/auth/composite-token-verifier.ts': ['test/contract/http/token-matrix.http.test.ts'],
  'adapters/auth/public-key.ts': ['test/unit/adapters/auth/jwt-token-verifier.test.ts'],
  'adapters/auth/static-token-verifier.ts': ['test/contract/http/token-matrix.http.test.ts'],
  'adapters/config-error.ts': ['test/unit/config/index.test.ts'],
  'adapters/http/app.ts': ['test/contract/http/memory.http.test.ts'],
  'adapters/http/bearer-auth.ts': ['test/contract/http/token-matrix.http.test.ts'],
  'adapters/http/docs/docs-assets.ts': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/docs/docs-client.ts': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/docs/docs-page.ts': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/docs/docs-routes.ts': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/docs/openapi-examples.ts': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/docs/openapi-webhooks.ts': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/docs/openapi.ts': ['test/e2e/http/docs-route.test.ts'],
  'adapters/http/encoded-body.ts': ['test/e2e/http/body-bounds.test.ts'],
  'adapters/http/error-catalogue.ts': ['test/contract/http/error-catalogue.test.ts'],
  'adapters/http/http-problem.ts': ['test/contract/http/error-catalogue.test.ts'],
  'adapters/http/operations/metrics-route.ts': [
    'test/e2e/operations/observability.test.ts',
    'test/e2e/operations/workers-metrics.test.ts',
  ],
  'adapters/http/operations/open-routes.ts': ['test/contract/http/memory.http.test.ts'],
  'adapters/http/operations/readiness.ts': ['test/e2e/operations/outage-reports.test.ts'],
  'adapters/http/plant-routes.ts': [
    'test/contract/http/memory.http.test.ts',
    'test/contract/http/fuzz.test.ts',
  ],
  'adapters/http/raw-headers.ts': ['test/e2e/http/protocol-answers.test.ts'],
  'adapters/http/request-state.ts': ['test/contract/http/memory.http.test.ts'],
  'adapters/http/server/client-error.ts': ['test/e2e/http/protocol-answers.test.ts'],
  'adapters/http/server/close-socket.ts': [
    'test/e2e/http/closing-connections.test.ts',
    'test/e2e/http/lingering-close.test.ts',
  ],
  'adapters/http/server/connection-slots.ts': ['test/e2e/http/connection-slots.test.ts'],
  'adapters/http/server/http-server.ts': [
    'test/e2e/http/connection-slots.test.ts',
    'test/e2e/http/closing-connections.test.ts',
  ],
  'adapters/http/server/output-watch.ts': ['test/e2e/http/output-and-connections.test.ts'],
  'adapters/http/server/pipelined-answers.ts': ['test/e2e/http/pipelined-answers.test.ts'],
  'adapters/http/trusted-proxy.ts': ['test/e2e/http/trusted-proxy.test.ts'],
  'adapters/limits/ferretdb-limiter.ts': ['test/contract/limits/mongodb-keyed-limiter.test.ts'],
  'adapters/limits/keyed-limiter.ts': ['test/contract/limits/keyed-limiter.test.ts'],
  'adapters/limits/limiter-store.ts': [
    'test/contract/limits/keyed-limiter.test.ts',
    'test/e2e/embedding/limiter-store-seam.test.ts',
  ],
  'adapters/limits/rate-limiter-lmdb.ts': ['test/contract/limits/lmdb-keyed-limiter.test.ts'],
  'adapters/storage/deadline.ts': [
    'test/contract/storage/redis-plant-store-failures.test.ts',
    'test/e2e/operations/outage-reports.test.ts',
  ],
  'adapters/storage/lmdb/lmdb-environment.ts': [
    'test/unit/adapters/storage/lmdb/open-lmdb-storage.test.ts',
    'test/e2e/storage/lmdb-program.test.ts',
  ],
  'adapters/storage/lmdb/lmdb-keys.ts': [
    'test/unit/adapters/storage/lmdb/lmdb-plant-store.test.ts',
    'test/contract/storage/plant-store.test.ts',
  ],
  'adapters/storage/lmdb/lmdb-token-store.ts': ['test/contract/storage/token-store.test.ts'],
  'adapters/storage/lmdb/lmdb-webhook-outbox.ts': ['test/contract/storage/webhook-outbox.test.ts'],
  'adapters/storage/lmdb/lmdb-webhook-subscriptions.ts': [
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/lmdb/lmdb-writer.ts': [
    'test/e2e/storage/lmdb-kill.test.ts',
    'test/e2e/storage/lmdb-full-disk.test.ts',
  ],
  'adapters/storage/memory/memory-plant-store.ts': ['test/contract/storage/plant-store.test.ts'],
  'adapters/storage/memory/memory-token-store.ts': ['test/contract/storage/token-store.test.ts'],
  'adapters/storage/memory/memory-webhook-outbox.ts': [
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/memory/memory-webhook-subscriptions.ts': [
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/memory/open-memory-storage.ts': [
    'test/contract/storage/plant-store.test.ts',
    'test/e2e/embedding/embedding.test.ts',
  ],
  'adapters/storage/mongodb/mongo-client.ts': [
    'test/contract/storage/mongodb-plant-store-server.test.ts',
    'test/e2e/storage/mongodb-service.test.ts',
  ],
  'adapters/storage/mongodb/mongo-plant-store.ts': ['test/contract/storage/plant-store.test.ts'],
  'adapters/storage/mongodb/mongo-token-store.ts': ['test/contract/storage/token-store.test.ts'],
  'adapters/storage/mongodb/mongo-webhook-outbox.ts': [
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/mongodb/mongo-webhook-subscriptions.ts': [
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/mongodb/open-mongo-storage.ts': ['test/e2e/storage/mongodb-service.test.ts'],
  'adapters/storage/mongodb/plant-counts.ts': ['test/contract/storage/plant-store.test.ts'],
  'adapters/storage/outage-reporter.ts': ['test/e2e/operations/outage-reports.test.ts'],
  'adapters/storage/redis/open-redis-storage.ts': ['test/e2e/storage/redis-service.test.ts'],
  'adapters/storage/redis/redis-plant-store.ts': ['test/contract/storage/plant-store.test.ts'],
  'adapters/storage/redis/redis-token-store.ts': ['test/contract/storage/token-store.test.ts'],
  'adapters/storage/redis/redis-webhook-keys.ts': [
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/redis/redis-webhook-outbox.ts': [
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/redis/redis-webhook-subscriptions.ts': [
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/storage/starting-storage.ts': [
    'test/unit/adapters/storage/startup.test.ts',
    'test/e2e/operations/startup.test.ts',
  ],
  'adapters/storage/storage-open-error.ts': [
    'test/e2e/storage/lmdb-program.test.ts',
    'test/e2e/operations/startup.test.ts',
  ],
  'adapters/storage/webhook-record.ts': [
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/contract/storage/webhook-outbox.test.ts',
  ],
  'adapters/telemetry/cluster-metrics.ts': ['test/e2e/operations/workers-metrics.test.ts'],
  'adapters/telemetry/service-metrics.ts': ['test/e2e/operations/observability.test.ts'],
  'adapters/telemetry/traced-use-cases.ts': ['test/e2e/operations/observability.test.ts'],
  'adapters/transfer/atomic-file.ts': [
    'test/unit/cli/export-output.test.ts',
    'test/e2e/cli/export-output.cli.test.ts',
  ],
  'adapters/transfer/ndjson-lines.ts': [
    'test/unit/application/plant-import.test.ts',
    'test/e2e/cli/plant-transfer.cli.test.ts',
  ],
  'adapters/webhooks/webhook-config.ts': [
    'test/unit/config/index.test.ts',
    'test/e2e/webhooks/webhook-delivery.test.ts',
  ],
  'adapters/webhooks/webhook-delivery.ts': ['test/e2e/webhooks/webhook-delivery.test.ts'],
  'adapters/webhooks/webhook-dispatcher.ts': [
    'test/e2e/webhooks/webhook-delivery.test.ts',
    'test/e2e/webhooks/webhook-outbox-outage.test.ts',
  ],
  'application/plant-export.ts': [
    'test/e2e/cli/plant-transfer.cli.test.ts',
    'test/e2e/storage/lmdb-program.test.ts',
  ],
  'application/token-format.ts': [
    'test/unit/application/token-administrator.test.ts',
    'test/unit/adapters/auth/managed-token-verifier.test.ts',
  ],
  'application/webhook-administrator.ts': [
    'test/e2e/webhooks/webhook-delivery.test.ts',
    'test/e2e/webhooks/webhooks-processes.test.ts',
  ],
  'application/webhook-ids.ts': [
    'test/contract/storage/webhook-subscriptions.test.ts',
    'test/e2e/webhooks/webhook-delivery.test.ts',
  ],
  'cli.ts': ['test/e2e/cli/cli-arguments.test.ts'],
  'cli/backup-command.ts': [
    'test/e2e/storage/lmdb-program.test.ts',
    'test/e2e/embedding/embedding-backup.test.ts',
  ],
  'cli/duration.ts': ['test/e2e/cli/tokens.cli.test.ts'],
  'cli/exit-codes.ts': ['test/e2e/cli/cli-arguments.test.ts'],
  'cli/parse-options.ts': ['test/e2e/cli/cli-arguments.test.ts'],
  'cli/serve-options.ts': [
    'test/e2e/cli/cli-arguments.test.ts',
    'test/e2e/cli/workers.cli.test.ts',
  ],
  'cli/shared-storage.ts': [
    'test/e2e/cli/cli-arguments.test.ts',
    'test/e2e/cli/plant-transfer.cli.test.ts',
  ],
  'cli/token-commands.ts': ['test/e2e/cli/tokens.cli.test.ts'],
  'cli/transfer-commands.ts': [
    'test/e2e/cli/plant-transfer.cli.test.ts',
    'test/e2e/cli/export-output.cli.test.ts',
  ],
  'cli/webhook-commands.ts': [
    'test/e2e/webhooks/webhooks-processes.test.ts',
    'test/e2e/cli/cli-arguments.test.ts',
  ],
  'client/index.ts': [
    'test/e2e/client/client-memory.test.ts',
    'test/contract/client-surface.test.ts',
  ],
  'composition/auth-module.ts': [
    'test/contract/http/token-matrix.http.test.ts',
    'test/e2e/embedding/container-wiring.test.ts',
  ],
  'composition/development-token.ts': [
    'test/e2e/storage/lmdb-program.test.ts',
    'test/e2e/operations/main.test.ts',
  ],
  'composition/http-module.ts': [
    'test/e2e/embedding/container-wiring.test.ts',
    'test/e2e/embedding/host-app.test.ts',
  ],
  'composition/identifiers.ts': ['test/e2e/embedding/container-wiring.test.ts'],
  'composition/open-administration.ts': [
    'test/e2e/cli/tokens.cli.test.ts',
    'test/e2e/webhooks/webhooks-processes.test.ts',
  ],
  'composition/open-storage.ts': [
    'test/e2e/operations/startup.test.ts',
    'test/e2e/embedding/container-wiring.test.ts',
  ],
  'composition/serve-workers.ts': [
    'test/e2e/cli/workers.cli.test.ts',
    'test/e2e/storage/lmdb-program.test.ts',
  ],
  'composition/serve.ts': [
    'test/e2e/operations/main.test.ts',
    'test/e2e/operations/graceful-shutdown.test.ts',
  ],
  'composition/service-modules.ts': ['test/e2e/embedding/container-wiring.test.ts'],
  'composition/storage-label.ts': [
    'test/e2e/storage/lmdb-program.test.ts',
    'test/e2e/operations/main.test.ts',
  ],
  'composition/storage-module.ts': [
    'test/e2e/embedding/container-wiring.test.ts',
    'test/e2e/operations/startup.test.ts',
  ],
  'composition/telemetry-module.ts': [
    'test/e2e/operations/observability.test.ts',
    'test/e2e/embedding/container-wiring.test.ts',
  ],
  'composition/worker-heartbeat.ts': [
    'test/e2e/operations/workers-metrics.test.ts',
    'test/e2e/storage/lmdb-program.test.ts',
  ],
  'config/jwt.ts': ['test/contract/http/jwt.http.test.ts'],
  'config/parse.ts': ['test/unit/config/index.test.ts'],
  'config/tokens.ts': ['test/unit/config/index.test.ts', 'test/unit/domain/tenant.test.ts'],
  'config/webhooks.ts': ['test/unit/config/index.test.ts'],
  'core.ts': ['test/contract/core-input.test.ts', 'test/e2e/embedding/core-import.test.ts'],
  'domain/caller.ts': [
    'test/unit/application/plant-service.test.ts',
    'test/contract/http/token-matrix.http.test.ts',
  ],
  'domain/errors.ts': [
    'test/unit/application/plant-service.test.ts',
    'test/contract/http/error-catalogue.test.ts',
  ],
  'domain/json-text.ts': [
    'test/unit/domain/webhook.test.ts',
    'test/contract/openapi-int64.test.ts',
  ],
  'domain/managed-token.ts': [
    'test/unit/application/token-administrator.test.ts',
    'test/contract/storage/token-store.test.ts',
  ],
  'domain/plant-id.ts': ['test/unit/domain/plant.test.ts', 'test/contract/openapi-int64.test.ts'],
  'domain/plant-quota.ts': [
    'test/contract/storage/plant-quota.test.ts',
    'test/e2e/http/plant-quota.http.test.ts',
  ],
  'index.ts': ['test/e2e/embedding/embedding.test.ts'],
  'main.ts': ['test/e2e/operations/main.test.ts'],
  'ports/plant-store.ts': ['test/contract/storage/plant-store.test.ts'],
  'ports/token-store.ts': ['test/contract/storage/token-store.test.ts'],
  'ports/webhook-subscriptions.ts': ['test/contract/storage/webhook-subscriptions.test.ts'],
};
