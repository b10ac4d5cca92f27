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
