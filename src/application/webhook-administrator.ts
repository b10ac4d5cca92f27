import { checkTenant } from '../domain/tenant.js';
import { isWebhookEventType, WEBHOOK_EVENTS, WebhookRequestError } from '../domain/webhook.js';
import type { WebhookSubscription } from '../domain/webhook.js';
import type {
  ReceiverUrlCheck,
  SubscriptionRequest,
  WebhookAdministration,
} from '../ports/webhook-administration.js';
import type { WebhookSubscriptions } from '../ports/webhook-subscriptions.js';
import { newSubscriptionId, newWebhookSecret } from './webhook-ids.js';

/** Managing subscriptions (`plant-store webhooks`): checks requests, makes ids and secrets. */
export class WebhookAdministrator implements WebhookAdministration {
  constructor(
    private readonly store: WebhookSubscriptions,
    private readonly checkReceiverUrl: ReceiverUrlCheck,
  ) {}

  async add(request: SubscriptionRequest): Promise<WebhookSubscription> {
    const { tenant, url } = request;
    if (tenant === '') throw new WebhookRequestError('a tenant is required (--tenant T)');
    // The one tenant rule of every token: a subscription no token could reach is refused.
    const badTenant = checkTenant(tenant);
    if (badTenant !== undefined) throw new WebhookRequestError(`the tenant ${badTenant}`);
    const refusal = url.length > 2048 ? 'the URL is too long' : this.checkReceiverUrl(url);
    if (refusal !== undefined) throw new WebhookRequestError(refusal);
    const events = [...new Set(request.events?.length ? request.events : ['plant.created'])];
    const unknown = events.find((event) => !isWebhookEventType(event));
    if (unknown !== undefined) {
      throw new WebhookRequestError(
        `unknown event "${unknown}"; use ${WEBHOOK_EVENTS.join(' or ')}`,
      );
    }
    const subscription: WebhookSubscription = {
      id: newSubscriptionId(),
      tenant,
      url: new URL(url).href,
      secret: newWebhookSecret(),
      events: events.filter(isWebhookEventType), // all of them, as checked
      enabled: true,
      createdAt: new Date(),
      health: { failures: 0 },
    };
    if (await this.store.add(subscription)) return subscription;
    throw new Error('a subscription id repeated; try again');
  }

  list(tenant?: string) {
    return this.store.list(tenant);
  }

  remove(id: string): Promise<boolean> {
    return this.store.remove(id);
  }

  rotateSecret(id: string) {
    return this.store.update(id, { secret: newWebhookSecret() });
  }

  // Enabled again with its failures forgotten, so that the disable period starts afresh.
  enable(id: string) {
    return this.store.update(id, { enabled: true, disabledAt: null, health: { failures: 0 } });
  }

  disable(id: string) {
    return this.store.update(id, { enabled: false, disabledAt: new Date() });
  }
}
