/**
 * The path prefix the app is mounted under (koa-mount sets `ctx.mountPath`), or '' at the root.
 * It comes from the host's code, never from a request, so links and the served document may use it.
 */
export const mountPrefix = (mountPath: unknown): string =>
  typeof mountPath === 'string' && mountPath !== '/' ? mountPath : '';
