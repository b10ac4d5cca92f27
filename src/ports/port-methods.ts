/** What a method list leaves out of its port: never when it lists every method. */
type Missing<Port, Listed extends readonly unknown[]> = Exclude<keyof Port, Listed[number]>;

/** A port's method list, naming every method: decorators and forwarders are built from it. */
export const portMethods =
  <Port>() =>
  <const Listed extends readonly (keyof Port & string)[]>(
    methods: Listed &
      ([Missing<Port, Listed>] extends [never] ? unknown : { missing: Missing<Port, Listed> }),
  ): Listed =>
    methods;
