/** Stable codes of everything the core can refuse. Adapters map them; the core knows no transport. */
export type PlantErrorCode =
  | 'invalid-plant'
  | 'invalid-query'
  | 'insufficient-scope'
  | 'plant-not-found'
  | 'duplicate-plant'
  | 'plant-quota-reached'
  | 'storage-unavailable'
  /** The store answers but takes no writes: out of memory or disk, or read-only. */
  | 'storage-refuses-writes'
  /** The identity provider's keys cannot be fetched, so a JWT can be neither accepted nor refused. */
  | 'token-verification-unavailable';

/** A refusal of the core: a stable code and a message that is safe to show to the caller. */
export class PlantError extends Error {
  constructor(
    readonly code: PlantErrorCode,
    message: string,
    readonly scope?: string, // the scope an operation needed, for `insufficient-scope`
  ) {
    super(message);
    this.name = 'PlantError';
  }
}

export const isPlantError = (error: unknown): error is PlantError => error instanceof PlantError;
