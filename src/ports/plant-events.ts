/** Driven port: hears that a store recorded an event with a write (webhook delivery starts at once). */
export interface PlantEvents {
  /** A write of the tenant recorded an event for its subscribers; never throws. */
  recorded(tenant: string): void;
}
