import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { expect } from 'chai';
import { loadConfig } from '../../../../src/config/index.js';
import { activeTracer, tracingRequested } from '../../../../src/adapters/telemetry/tracing.js';
import { buildService, type Service } from '../../../../src/composition/container.js';

const TOKEN = 'tracing-test-token-0123456789';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

async function serve(): Promise<{ service: Service; server: Server; base: string }> {
  const service = await buildService({
    ...loadConfig({ LOG_LEVEL: 'silent', PLANT_STORE_STORAGE: 'memory' }),
    staticTokens: [{ token: TOKEN, tenant: 'traced', scopes: ['plants:read', 'plants:write'] }],
  });
  const server = createServer(service.app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { service, server, base: `http://127.0.0.1:${port}` };
}

describe('Tracing', () => {
  describe('with a provider registered (as OTEL_* variables make plant-store serve do)', () => {
    const exporter = new InMemorySpanExporter();
    let provider: NodeTracerProvider;
    let running: Awaited<ReturnType<typeof serve>>;

    before(async () => {
      provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      provider.register();
      running = await serve();
    });
    after(async () => {
      running.server.close();
      await running.service.close();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    });

    it('when a plant is created under a traceparent, then a server span, a use-case span and a store span chain to it', async () => {
      exporter.reset();
      const response = await fetch(`${running.base}/plants`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          'Content-Type': 'application/json',
          traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
        },
        body: '{"id":42,"name":"Traced"}',
      });
      expect(response.status).to.equal(200);

      const spans = exporter.getFinishedSpans();
      const named = (name: string) => {
        const found = spans.filter((span) => span.name === name);
        expect(found, `${name} among ${spans.map((s) => s.name).join(', ')}`).to.have.length(1);
        return found[0]!;
      };
      const server = named('POST /plants');
      const useCase = named('createPlant');
      const store = named('insert plants');
      expect(spans.every((span) => span.spanContext().traceId === TRACE_ID)).to.equal(true);
      expect(server.kind).to.equal(SpanKind.SERVER);
      expect(server.parentSpanContext?.spanId).to.equal(PARENT_ID);
      expect(server.attributes).to.deep.include({
        'http.request.method': 'POST',
        'http.route': '/plants',
        'http.response.status_code': 200,
      });
      expect(useCase.parentSpanContext?.spanId).to.equal(server.spanContext().spanId);
      expect(store.parentSpanContext?.spanId).to.equal(useCase.spanContext().spanId);
      expect(store.kind).to.equal(SpanKind.CLIENT);
      expect(store.attributes).to.deep.include({
        'db.system': 'memory',
        'db.operation.name': 'insert',
      });
    });
  });

  describe('with no provider registered', () => {
    it('when the service is built, then it has no tracer, so it makes no span at all', () => {
      expect(activeTracer()).to.equal(undefined);
    });

    it('when the OTEL_* variables are read, then only an OTLP exporter or endpoint turns tracing on', () => {
      expect(tracingRequested({})).to.equal(false);
      expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(
        true,
      );
      expect(
        tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }),
      ).to.equal(true);
      expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).to.equal(true);
      expect(
        tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }),
      ).to.equal(false);
      expect(
        tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }),
      ).to.equal(false);
      expect(() => tracingRequested({ OTEL_TRACES_EXPORTER: 'zipkin' })).to.throw(
        /OTEL_TRACES_EXPORTER must be otlp or none/,
      );
    });
  });
});
