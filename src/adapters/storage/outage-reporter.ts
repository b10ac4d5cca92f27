import type { Logger } from '../../ports/logger.js';

/** The stores whose outages are reported, as /readyz and the metrics name them. */
export type StorePart = 'plants' | 'tokens';

export type OutageListener = (store: StorePart, event: 'outage' | 'recovery') => void;

const LABEL: Record<StorePart, string> = { plants: 'plant store', tokens: 'token store' };

/**
 * Whether one store can serve: the first failure logs a `warn`, the first success after it an
 * `info`, once each, so that every technology reports the same two lines.
 */
export class OutageReporter {
  private since: number | undefined;

  constructor(
    readonly store: StorePart,
    private readonly logger?: Logger,
    private readonly listener?: OutageListener,
  ) {}

  /** A call failed because the store cannot serve; `reason` names no secret. */
  failed(reason: string, where?: string): void {
    if (this.since !== undefined) return;
    this.since = Date.now();
    const fields = { store: this.store, ...(where && { storage: where }), reason };
    this.logger?.warn(fields, `the ${LABEL[this.store]} cannot serve: ${reason}`);
    this.listener?.(this.store, 'outage');
  }

  recovered(where?: string): void {
    if (this.since === undefined) return;
    const outageSeconds = (Date.now() - this.since) / 1000;
    this.since = undefined;
    const fields = { store: this.store, ...(where && { storage: where }), outageSeconds };
    this.logger?.info(fields, `the ${LABEL[this.store]} serves again`);
    this.listener?.(this.store, 'recovery');
  }
}

export type OutageReporters = Readonly<Record<StorePart, OutageReporter>>;

/** Both stores lost their server (`reason`), or have it back (no reason): they live on one server. */
export function reportBoth(outages: OutageReporters, where: string, reason?: string): void {
  for (const reporter of [outages.plants, outages.tokens]) {
    if (reason === undefined) reporter.recovered(where);
    else reporter.failed(reason, where);
  }
}

export const outageReporters = (logger?: Logger, listener?: OutageListener): OutageReporters => ({
  plants: new OutageReporter('plants', logger, listener),
  tokens: new OutageReporter('tokens', logger, listener),
});
