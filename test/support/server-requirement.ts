/**
 * What a suite does when its server is absent: skip visibly on a developer's machine, fail under
 * CI=true (a missing server there is a broken install, never a silent pass).
 */
export function serverMissing(context: Mocha.Context, what: string, reason: string): void {
  const message = `${what} unavailable: ${reason}`;
  if (process.env.CI === 'true') throw new Error(`${message} (CI=true requires it)`);
  console.warn(`    skipped: ${message}`);
  context.skip();
}

/**
 * The server of the suite being described (call it inside `describe`): provided before the
 * suite's tests, closed after them; when `provide` answers a reason instead of a server,
 * `serverMissing` decides. Resolves the server in the tests and hooks that run later.
 */
export function suiteServer<T extends object>(
  what: string,
  provide: () => Promise<T | string>,
  close: (server: T) => Promise<unknown>,
): () => T {
  let server: T | undefined;
  before(async function () {
    const provided = await provide();
    if (typeof provided === 'string') return serverMissing(this, what, provided);
    server = provided;
  });
  after(async () => {
    if (server !== undefined) await close(server);
  });
  return () => server!;
}
