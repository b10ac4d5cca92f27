import type { Tracer } from '@opentelemetry/api';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import { failSpan } from './tracing.js';

/** The use cases with a span each (`createPlant`, ...), the store calls' parent. Used only when tracing is on. */
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
