import type { Logger } from '../../ports/logger.js';
import type { PlantEvents } from '../../ports/plant-events.js';
import type { Storage } from '../../ports/storage.js';
import type { WebhookConfig } from './webhook-config.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * Webhook delivery of a running service: started on an opened storage's outbox, and told of each
 * event a create recorded (as the use cases' PlantEvents), so that delivery starts at once rather
 * than at the next poll.
 */
export class WebhookDelivery implements PlantEvents {
  private dispatcher: WebhookDispatcher | undefined;

  constructor(
    private readonly settings: WebhookConfig,
    private readonly logger: Logger,
    /** Counts deliveries dropped over a tenant's backlog bound. */
    private readonly dropped?: { inc(count: number): void },
  ) {}

  /** Starts delivering from the storage's outbox, unless `deliver` is off or it has no webhooks. */
  start({ webhooks: subscriptions, outbox }: Storage): void {
    if (!this.settings.deliver || subscriptions === undefined || outbox === undefined) return;
    if (this.dispatcher !== undefined) return;
    const sender = new WebhookSender({
      ...this.settings,
      maxSockets: this.settings.tenantConcurrency,
    });
    this.dispatcher = new WebhookDispatcher({
      subscriptions,
      outbox,
      sender,
      config: this.settings,
      logger: this.logger,
      ...(this.dropped && { dropped: this.dropped }),
    });
    this.dispatcher.start();
  }

  recorded(tenant: string): void {
    this.dispatcher?.nudge(tenant);
  }

  /** Stops delivering and waits for deliveries in flight. */
  async stop(): Promise<void> {
    await this.dispatcher?.stop();
  }
}
