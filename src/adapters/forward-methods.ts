/** A port method as decorators call it. */
export type PortCall = (...args: unknown[]) => Promise<unknown>;

/**
 * The one way a store decorator is built: an object with each of `methods` (a port's method list,
 * src/ports), made by `forward` from the method's name. A method added to the port's list is then
 * forwarded by every decorator (starting-storage.ts, observed-store.ts) with no edit to them.
 */
export function forwardMethods<T>(
  methods: readonly (keyof T & string)[],
  forward: (method: keyof T & string) => PortCall,
): T {
  const forwarded: Record<string, PortCall> = {};
  for (const method of methods) forwarded[method] = forward(method);
  return forwarded as T;
}

/** Calls `store`'s `method` with its own `this`. */
export const callOn = <T>(store: T, method: keyof T, args: unknown[]) =>
  (store[method] as PortCall).apply(store, args);
