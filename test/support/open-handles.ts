// Mocha runs without `exit`, so a server, socket, child process or timer a test leaves open keeps
// the run from ending. Rather than hang (CI would only time out), the run names what is left and
// fails. The timer is unref'd: a run that ends by itself never sees it.
const GRACE_MS = 10_000;

export const mochaHooks = {
  afterAll(): void {
    setTimeout(() => {
      const left = process.getActiveResourcesInfo();
      console.error(
        `The tests ended ${GRACE_MS / 1000} s ago but left open: ${left.join(', ')}. ` +
          'Close what a test opens in its after hooks.',
      );
      // Mocha sets the exit code from the failures on 'exit'; this listener comes after its own.
      process.once('exit', () => (process.exitCode = 1));
      process.exit(1);
    }, GRACE_MS).unref();
  },
};
