import {
  ProxyTracerProvider,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import { ConfigError } from '../config-error.js';

const TRACER_NAME = 'plant-store';

// The registered provider's (startTracing's or a host's); none: no span at all, not even a no-op.
export function activeTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider
    ? provider.getDelegateTracer(TRACER_NAME)
    : provider.getTracer(TRACER_NAME);
}

/** Ends `span` as failed with `error`, and returns the error (to be thrown on). */
export function failSpan(span: Span | undefined, error: unknown): unknown {
  span?.recordException(error as Error);
  span?.setStatus({ code: SpanStatusCode.ERROR });
  span?.end();
  return error;
}

/** The use cases with a span each (`createPlant`, ...), the store calls' parent; only when tracing is on. */
export function tracedUseCases(plants: PlantUseCases, tracer: Tracer): PlantUseCases {
  const traced =
    <A extends unknown[], R>(name: string, run: (...args: A) => Promise<R>) =>
    (...args: A) =>
      tracer.startActiveSpan(name, (span) =>
        run(...args).then(
          (value) => (span.end(), value),
          (error: unknown) => {
            throw failSpan(span, error);
          },
        ),
      );
  return {
    createPlant: traced('createPlant', plants.createPlant.bind(plants)),
    listPlants: traced('listPlants', plants.listPlants.bind(plants)),
    getPlant: traced('getPlant', plants.getPlant.bind(plants)),
    deletePlant: traced('deletePlant', plants.deletePlant.bind(plants)),
  };
}

/** Whether the standard OTEL_* variables ask for traces (OTLP is the only exporter offered). */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter === 'none') return false;
  if (exporter && exporter !== 'otlp') {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none (got "${exporter}")`);
  }
  return Boolean(
    exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  );
}

/**
 * Registers the OpenTelemetry SDK (OTLP/HTTP, configured by the OTEL_* variables) when the
 * environment asks for traces, imported only then; resolves how to flush and stop it.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv,
): Promise<(() => Promise<void>) | undefined> {
  if (!tracingRequested(env)) return undefined;
  const [sdk, otlp, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'plant-store' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter())],
  });
  // Also installs the W3C traceparent propagator and the AsyncLocalStorage context manager.
  provider.register();
  return () => provider.shutdown();
}
