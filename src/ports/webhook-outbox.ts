import type { WebhookEventType } from '../domain/webhook.js';

/** One event on its way to one subscription, as recorded with the plant. */
export interface PendingDelivery {
  /** Names this delivery in its outbox. */
  readonly key: string;
  readonly tenant: string;
  readonly subscriptionId: string;
  /** The `webhook-id`: the same for every attempt, instance and receiver of one event. */
  readonly eventId: string;
  readonly type: WebhookEventType;
  /** The JSON body, exactly as it is sent. */
  readonly body: string;
  /** Failed attempts so far. */
  readonly attempts: number;
  readonly createdAt: Date;
}

/**
 * Driven port: the deliveries a store recorded with its writes, shared by every instance on the
 * store. A claim hides a delivery from other claims for a lease; a lost lease (a crash, a slow
 * send) lets another instance deliver it again, with the same event id.
 */
export interface WebhookOutbox {
  /**
   * Claims at most `max` deliveries due at `now`, hiding them from other claims for `leaseMs`;
   * at most `roomFor(tenant)` of one tenant (no bound when absent). However many deliveries a
   * tenant without room has due, the other tenants' due deliveries are reached.
   */
  claim(
    now: Date,
    max: number,
    leaseMs: number,
    roomFor?: (tenant: string) => number,
  ): Promise<PendingDelivery[]>;
  /** Forgets a delivery: delivered, or its subscription is gone. */
  complete(delivery: PendingDelivery): Promise<void>;
  /** Makes the delivery due again at `due`, having failed `attempts` times in all. */
  retry(delivery: PendingDelivery, due: Date, attempts: number): Promise<void>;
  /**
   * Forgets the tenant's oldest deliveries (by creation) so that at most `keep` are left (whole
   * documents on MongoDB: a few more may go); resolves how many it forgot.
   */
  trim(tenant: string, keep: number): Promise<number>;
  /** Resolves how many deliveries are pending, of all tenants or of one; for monitoring and tests. */
  size(tenant?: string): Promise<number>;
  /** Releases what the outbox holds; it is not used afterwards. */
  close(): Promise<void>;
}
