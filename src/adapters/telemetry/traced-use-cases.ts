import { SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';

/** Ends the span of a use case as its promise settles. */
function ending<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    },
  );
}

/** The use cases with a span each (`createPlant`, ...), the store calls' parent. Used only when tracing is on. */
export function tracedUseCases(plants: PlantUseCases, tracer: Tracer): PlantUseCases {
  return {
    createPlant: (caller, input) =>
      tracer.startActiveSpan('createPlant', (span) =>
        ending(span, plants.createPlant(caller, input)),
      ),
    listPlants: (caller, query) =>
      tracer.startActiveSpan('listPlants', (span) =>
        ending(span, plants.listPlants(caller, query)),
      ),
    getPlant: (caller, id) =>
      tracer.startActiveSpan('getPlant', (span) => ending(span, plants.getPlant(caller, id))),
    deletePlant: (caller, id) =>
      tracer.startActiveSpan('deletePlant', (span) => ending(span, plants.deletePlant(caller, id))),
  };
}
