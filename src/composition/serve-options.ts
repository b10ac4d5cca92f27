/** How `serve` runs, besides the configuration: what `plant-store serve` reads from its arguments. */
export interface ServeOptions {
  /** Worker processes (node:cluster); absent: one process, no cluster. */
  workers?: number;
}
