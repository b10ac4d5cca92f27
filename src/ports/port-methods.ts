/** What a method list leaves out of its port: never when it lists every method. */
type Missing<Port, Listed extends readonly unknown[]> = Exclude<keyof Port, Listed[number]>;

/**
 * A port's method list, checked when it compiles to name every method of the port: decorators and
 * forwarders (observed-store.ts, starting-storage.ts) are built from it, so that a method added to
 * a port is added to its list next to it and nowhere else. `portMethods<PlantStore>()([...])`.
 */
export const portMethods =
  <Port>() =>
  <const Listed extends readonly (keyof Port & string)[]>(
    methods: Listed &
      ([Missing<Port, Listed>] extends [never] ? unknown : { missing: Missing<Port, Listed> }),
  ): Listed =>
    methods;
