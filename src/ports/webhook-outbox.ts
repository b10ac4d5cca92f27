import type { WebhookEventType } from '../domain/webhook.js';

/** One event on its way to one subscription, as recorded with the plant. */
export interface PendingDelivery {
  /** Names this delivery in its outbox */
  readonly key: string;
  readonly tenant: string;
  readonly subscriptionId: string;
  /** The `webhook-id`: one per event, whatever the attempt or receiver */
  readonly eventId: string;
  readonly type: WebhookEventType;
  /** The JSON body, exactly as it is sent */
  readonly body: string;
  /** Failed so far */
  readonly attempts: number;
  readonly createdAt: Date;
}

/**
 * Driven port: the deliveries a store recorded with its writes, shared by every instance. A claim
 * hides one for a lease; a lost lease lets another instance deliver it again, same event id.
 */
export interface WebhookOutbox {
  /**
   * Claims at most `max` deliveries due at `now` for `leaseMs`, at most `roomFor(tenant)` of one
   * tenant; a tenant without room never keeps the others' due deliveries from being reached.
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
  /** Forgets the tenant's oldest deliveries but `keep` (MongoDB: a few more); resolves how many. */
  trim(tenant: string, keep: number): Promise<number>;
  /** Resolves how many deliveries are pending, of all tenants or of one; for monitoring and tests. */
  size(tenant?: string): Promise<number>;
  /** Releases what the outbox holds; it is not used afterwards. */
  close(): Promise<void>;
}
