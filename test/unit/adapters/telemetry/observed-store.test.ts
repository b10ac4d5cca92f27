import { SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { MemoryPlantStore } from '../../../../src/adapters/storage/memory/memory-plant-store.js';
import { OutageReporter } from '../../../../src/adapters/storage/outage-reporter.js';
import { observedStore } from '../../../../src/adapters/telemetry/observed-store.js';
import { ServiceMetrics } from '../../../../src/adapters/telemetry/service-metrics.js';
import { PlantError } from '../../../../src/domain/errors.js';
import { PLANT_STORE_METHODS, type PlantStore } from '../../../../src/ports/plant-store.js';
import { rejection } from '../../../support/rejection.js';

const methodsOf = (prototype: object): string[] =>
  Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== 'constructor')
    .sort();

/** A store observed as the service observes it, with what the observers saw. */
function observed(store: PlantStore = new MemoryPlantStore()) {
  const lines: string[] = [];
  const log = (level: string) => (_fields: object, message?: string) =>
    void lines.push(`${level} ${message}`);
  const logger = { debug() {}, info: log('info'), warn: log('warn'), error: log('error') };
  const metrics = new ServiceMetrics({ defaultMetrics: false });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const plants = observedStore(store, PLANT_STORE_METHODS, {
    adapter: 'memory',
    outages: new OutageReporter('plants', logger, metrics.storeEvent),
    metrics,
    tracer: provider.getTracer('test'),
  });
  const count = async (
    metric: { get(): Promise<{ values: { value: number; labels: object }[] }> },
    labels: object,
  ) =>
    (await metric.get()).values.find((v) => JSON.stringify(v.labels) === JSON.stringify(labels))
      ?.value ?? 0;
  return { plants, lines, metrics, spans: () => exporter.getFinishedSpans(), count };
}

describe('observedStore', () => {
  it("when the port lists its methods, then they are exactly the memory store's (each one forwarded)", () => {
    expect([...PLANT_STORE_METHODS].sort()).to.deep.equal(methodsOf(MemoryPlantStore.prototype));
  });

  it('when a call succeeds, then it answers as the store does, timed by operation and adapter, with a client span', async () => {
    const { plants, metrics, spans } = observed();

    const inserted = await plants.insert('t', { id: 1n, name: 'Monstera' });
    const listed = await plants.list('t', undefined, 10);

    expect(inserted).to.equal(true);
    expect(listed).to.deep.equal([{ id: 1n, name: 'Monstera' }]);
    const timed = (await metrics.storeDuration.get()).values.filter(
      (v) => v.metricName?.endsWith('_count') && v.value > 0,
    );
    expect(timed.map((v) => [v.labels.operation, v.labels.adapter, v.value])).to.deep.equal([
      ['insert', 'memory', 1],
      ['list', 'memory', 1],
    ]);
    expect(spans().map((s) => [s.name, s.kind, s.attributes['db.system']])).to.deep.equal([
      ['insert plants', SpanKind.CLIENT, 'memory'],
      ['list plants', SpanKind.CLIENT, 'memory'],
    ]);
  });

  it('when calls fail with storage-unavailable and then one succeeds, then the outage is logged and counted once, and its end too', async () => {
    const store = new MemoryPlantStore();
    let down = true;
    const ping = store.ping.bind(store);
    const outage = new PlantError('storage-unavailable', 'unavailable');
    outage.cause = new Error('ECONNREFUSED');
    store.ping = () => (down ? Promise.reject(outage) : ping());
    const { plants, lines, metrics, count, spans } = observed(store);

    const failures = [await rejection(plants.ping()), await rejection(plants.ping())];
    down = false;
    await plants.ping();

    expect(failures.map((error) => (error as PlantError).code)).to.deep.equal([
      'storage-unavailable',
      'storage-unavailable',
    ]);
    expect(lines).to.deep.equal([
      'warn the plant store cannot serve: ECONNREFUSED',
      'info the plant store serves again',
    ]);
    expect(
      await count(metrics.storeErrors, { store: 'plants', operation: 'ping', adapter: 'memory' }),
    ).to.equal(2);
    expect(await count(metrics.outages, { store: 'plants' })).to.equal(1);
    expect(await count(metrics.recoveries, { store: 'plants' })).to.equal(1);
    expect(spans().map((s) => s.status.code)).to.deep.equal([2, 2, 0]);
  });
});
