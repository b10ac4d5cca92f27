import { PlantStoreTimeoutError } from './errors.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One call's cancellation: its signal aborts when the caller's signal does (with the caller's
 * reason) or when the timeout passes (with a PlantStoreTimeoutError). Dispose it when the call ends.
 */
export class CallScope {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly deadline: number;
  private readonly onCallerAbort: () => void;

  constructor(
    timeoutMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    this.deadline = Date.now() + timeoutMs;
    this.onCallerAbort = () => this.controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    // Beyond the longest timer (about 24.8 days) there is no timeout at all.
    if (timeoutMs <= MAX_TIMER_MS) {
      this.timer = setTimeout(
        () => this.controller.abort(new PlantStoreTimeoutError(timeoutMs)),
        timeoutMs,
      );
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left before the timeout. */
  remainingMs(): number {
    return this.deadline - Date.now();
  }

  /** Throws the abort reason when the call is over (aborted or timed out). */
  throwIfAborted(): void {
    this.controller.signal.throwIfAborted();
  }

  /** Resolves after `ms`, or rejects with the abort reason as soon as the call is aborted. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const signal = this.controller.signal;
      if (signal.aborted) return reject(signal.reason);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}
