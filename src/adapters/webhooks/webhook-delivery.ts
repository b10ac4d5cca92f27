import { failedTooLong, retryDelay } from '../../domain/retry-schedule.js';
import type { WebhookSubscription } from '../../domain/webhook.js';
import type { Logger } from '../../ports/logger.js';
import type { PlantEvents } from '../../ports/plant-events.js';
import type { Storage } from '../../ports/storage.js';
import type { PendingDelivery, WebhookOutbox } from '../../ports/webhook-outbox.js';
import type { WebhookSubscriptions } from '../../ports/webhook-subscriptions.js';
import type { WebhookConfig } from './webhook-config.js';
import { WebhookSender } from './webhook-sender.js';

// A success is written back at most this often per subscription: healthy receivers cost no writes.
const SUCCESS_WRITE_MS = 60_000;
// A tenant's backlog is trimmed to its bound at most once in this many polls (10 s by default).
const TRIM_POLLS = 10;

/**
 * Webhook delivery from an opened storage's outbox: polls (at once after a create here), claims
 * due deliveries for a lease, sends each, reschedules failures. Of `concurrency` in flight, one
 * tenant holds at most `tenantConcurrency` and half (rounded up); a claim over its tenant's share
 * is handed back, so a receiver that never answers leaves the other slots to other tenants.
 */
export class WebhookDelivery implements PlantEvents {
  private parts:
    | { subscriptions: WebhookSubscriptions; outbox: WebhookOutbox; sender: WebhookSender }
    | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private subscribed: { at: number; tenants: Set<string>; any?: boolean } = {
    at: 0,
    tenants: new Set(),
  };
  /** An outbox outage under way: since when, and whether its start was logged. */
  private outage: { since: number; logged: boolean } | undefined;
  private running = false;
  private again = false;
  private stopped = true;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perTenant = new Map<string, number>();
  private readonly cache = new Map<string, { at: number; subscription?: WebhookSubscription }>();
  private readonly trimmed = new Map<string, number>();
  /** One tenant's share of the slots: with 8 in all and 8 per tenant, a stuck receiver held all 8. */
  private readonly tenantLimit: number;

  constructor(
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
    /** Counts deliveries dropped over a tenant's backlog bound (a metric). */
    private readonly dropped?: { inc(count: number): void },
  ) {
    const { concurrency, tenantConcurrency } = config;
    this.tenantLimit = Math.min(tenantConcurrency, Math.max(1, Math.ceil(concurrency / 2)));
  }

  /** Starts delivering from the storage's outbox, unless `deliver` is off or it has no webhooks. */
  start({ webhooks: subscriptions, outbox }: Storage): void {
    if (!this.config.deliver || !subscriptions || !outbox || this.parts) return;
    const sender = new WebhookSender({ ...this.config, maxSockets: this.config.tenantConcurrency });
    this.parts = { subscriptions, outbox, sender };
    this.stopped = false;
    void this.refreshTenants();
    this.schedule(0);
  }

  /** Looks for due deliveries now when the tenant has subscriptions (a create here wrote one). */
  recorded(tenant: string): void {
    if (this.stopped) return;
    if (Date.now() - this.subscribed.at > this.config.cacheMs) void this.refreshTenants();
    if (this.subscribed.tenants.has(tenant)) this.schedule(0);
  }

  /** Stops delivering and waits for deliveries in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    if (this.parts === undefined) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.running || this.inFlight.size > 0) {
      await Promise.race([...this.inFlight, new Promise((resolve) => setTimeout(resolve, 10))]);
    }
    this.parts.sender.close();
  }

  private async refreshTenants(): Promise<void> {
    this.subscribed.at = Date.now();
    // A failure leaves it as it was: the poll delivers anyway; a nudge only shortens the wait.
    const all = await this.parts!.subscriptions.list().catch(() => undefined);
    if (all === undefined) return;
    const tenants = new Set(all.filter((s) => s.enabled).map((s) => s.tenant));
    this.subscribed = { at: Date.now(), tenants, any: all.length > 0 };
  }

  private schedule(ms: number): void {
    const at = Date.now() + ms;
    if (this.timer !== undefined && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.tick();
    }, ms).unref();
  }

  private async tick(): Promise<void> {
    if (this.running) return void (this.again = true);
    this.running = true;
    let full = false;
    // One line as an outbox outage starts and one as it ends, not one per poll; none when this
    // process knew of no subscription at its last look (at start, on a create): nothing waits.
    try {
      do {
        this.again = false;
        full = await this.claimAndSend();
      } while (this.again && !this.stopped);
      if (this.outage?.logged) {
        const outageSeconds = (Date.now() - this.outage.since) / 1000;
        this.logger.info({ outageSeconds }, 'webhook outbox available again');
      }
      this.outage = undefined;
    } catch (error) {
      if (this.outage === undefined) {
        this.outage = { since: Date.now(), logged: this.subscribed.any !== false };
        const reason = (error as Error).message;
        if (this.outage.logged)
          this.logger.warn({ reason }, 'webhook outbox unavailable; trying again');
      }
    } finally {
      this.running = false;
    }
    // A full claim means more may be due: look again once a slot frees, otherwise after the poll.
    if (!this.stopped) this.schedule(full ? 5 : this.config.pollMs);
  }

  /** Resolves whether it claimed as many as it had room for. */
  private async claimAndSend(): Promise<boolean> {
    const { config, perTenant, tenantLimit } = this;
    const { outbox } = this.parts!;
    const room = config.concurrency - this.inFlight.size;
    if (room <= 0) return true;
    const now = new Date();
    const roomFor = (tenant: string) => tenantLimit - (perTenant.get(tenant) ?? 0);
    const claimed = await outbox.claim(now, room, config.leaseMs, roomFor);
    for (const delivery of claimed) {
      const { tenant } = delivery;
      this.trim(tenant);
      if (roomFor(tenant) <= 0) {
        // Handed back untried: the tenant's receiver is still busy with earlier ones.
        const later = new Date(now.getTime() + config.pollMs);
        this.track(outbox.retry(delivery, later, delivery.attempts));
        continue;
      }
      perTenant.set(tenant, (perTenant.get(tenant) ?? 0) + 1);
      this.track(
        this.deliver(delivery).finally(() => {
          const left = perTenant.get(tenant)! - 1;
          if (left === 0) perTenant.delete(tenant);
          else perTenant.set(tenant, left);
        }),
      );
    }
    return claimed.length >= room;
  }

  /** Drops the tenant's oldest deliveries beyond its bound: at its first claim, then now and then. */
  private trim(tenant: string): void {
    const { config, logger, dropped } = this;
    if (Date.now() - (this.trimmed.get(tenant) ?? -Infinity) < TRIM_POLLS * config.pollMs) return;
    if (this.trimmed.size > 10_000) this.trimmed.clear();
    this.trimmed.set(tenant, Date.now());
    // Tracked so that stop() waits for it; one that fails is tried again at the next check.
    this.track(
      this.parts!.outbox.trim(tenant, config.tenantBacklog).then(
        (count) => {
          if (count === 0) return;
          dropped?.inc(count);
          logger.warn(
            { tenant, dropped: count, bound: config.tenantBacklog },
            'webhook deliveries dropped: the tenant had more pending than its bound; the oldest went',
          );
        },
        () => void this.trimmed.delete(tenant),
      ),
    );
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((err: unknown) =>
        this.logger.warn({ err }, 'webhook outbox update failed; the lease will expire'),
      )
      .finally(() => {
        this.inFlight.delete(tracked);
        if (!this.stopped) this.schedule(0);
      });
    this.inFlight.add(tracked);
  }

  private remember(id: string, subscription: WebhookSubscription | undefined) {
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(id, { at: Date.now(), ...(subscription && { subscription }) });
    return subscription;
  }

  private async deliver(delivery: PendingDelivery): Promise<void> {
    const { config, logger } = this;
    const { outbox, sender, subscriptions } = this.parts!;
    const { subscriptionId, eventId: webhookId } = delivery;
    const cached = this.cache.get(subscriptionId);
    const subscription =
      cached !== undefined && Date.now() - cached.at < config.cacheMs
        ? cached.subscription
        : this.remember(subscriptionId, await subscriptions.find(subscriptionId));
    // Removed: its deliveries go with it.
    if (subscription?.tenant !== delivery.tenant) return outbox.complete(delivery);
    const { id, tenant, health } = subscription;
    const now = new Date();
    if (!subscription.enabled) {
      // Held while disabled, looked at again now and then, sent once it is enabled again.
      const park = Math.min(60_000, config.schedule.delaysMs.at(-1) ?? 60_000);
      return outbox.retry(delivery, new Date(now.getTime() + park), delivery.attempts);
    }
    const outcome = await sender.send(subscription.url, subscription.secret, delivery, now);
    if (outcome.ok) {
      await outbox.complete(delivery);
      const last = health.lastSuccessAt?.getTime() ?? 0;
      if (health.failures === 0 && now.getTime() - last < SUCCESS_WRITE_MS) return;
      const update = { health: { failures: 0, lastAttemptAt: now, lastSuccessAt: now } };
      return void this.remember(id, await subscriptions.update(id, update));
    }
    const attempts = delivery.attempts + 1;
    await outbox.retry(
      delivery,
      new Date(now.getTime() + retryDelay(config.schedule, attempts)),
      attempts,
    );
    const failingSince = health.failingSince ?? now;
    const failures = health.failures + 1;
    const disable = failedTooLong(config.schedule, failingSince, now);
    const update = {
      health: { ...health, failures, failingSince, lastError: outcome.error, lastAttemptAt: now },
      ...(disable && { enabled: false, disabledAt: now }),
    };
    this.remember(id, await subscriptions.update(id, update));
    if (disable) {
      logger.warn(
        { subscription: id, tenant, webhookId },
        'webhook subscription disabled: it kept failing for the whole disable period',
      );
    }
    const reason = outcome.error;
    logger.warn(
      { subscription: id, tenant, webhookId, attempts, reason },
      'webhook delivery failed; it will be tried again',
    );
  }
}
