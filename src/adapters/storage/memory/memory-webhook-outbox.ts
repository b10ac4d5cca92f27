import { eventBody, type PlantEvent, type WebhookEventType } from '../../../domain/webhook.js';
import type { PendingDelivery, WebhookOutbox } from '../../../ports/webhook-outbox.js';
import { newEventId } from '../../../application/webhook-ids.js';

type Entry = PendingDelivery & { attempts: number; due: number };

const toDelivery = ({ due: _due, ...delivery }: Entry): PendingDelivery => delivery;

/**
 * The memory storage's outbox, forgotten with its plants when the process ends. Claims look at
 * each tenant's entries in order, moving a claimed or retried one to the end.
 */
export class MemoryWebhookOutbox implements WebhookOutbox {
  private readonly byTenant = new Map<string, Map<string, Entry>>(); // in the order claims look

  /** `targets`: the ids of the tenant's subscriptions that want the event. */
  constructor(private readonly targets: (tenant: string, type: WebhookEventType) => string[]) {}

  /** Records the event for the tenant's subscribers; nothing when it has none. */
  async record(tenant: string, event: PlantEvent): Promise<void> {
    const subscriptions = this.targets(tenant, event.type);
    if (subscriptions.length === 0) return;
    const eventId = newEventId();
    const now = Date.now();
    const common = { type: event.type, body: eventBody(event), attempts: 0, due: now };
    const pending = this.byTenant.get(tenant) ?? new Map<string, Entry>();
    this.byTenant.set(tenant, pending);
    for (const subscriptionId of subscriptions) {
      const key = `${eventId}:${subscriptionId}`;
      const entry = { key, tenant, subscriptionId, eventId, ...common, createdAt: new Date(now) };
      pending.set(key, entry);
    }
  }

  async claim(
    now: Date,
    max: number,
    leaseMs: number,
    roomFor: (tenant: string) => number = () => Infinity,
  ): Promise<PendingDelivery[]> {
    const claimed: PendingDelivery[] = [];
    const served: string[] = [];
    const at = now.getTime();
    for (const [tenant, pending] of this.byTenant) {
      if (claimed.length >= max) break;
      const room = Math.min(max - claimed.length, roomFor(tenant));
      if (room <= 0) continue;
      // What is due is found first (claimed and retried entries move to the end); the walk is
      // bounded all the same, so that a backlog that is not due never makes every claim walk it.
      const taken: Entry[] = [];
      let looked = 0;
      for (const entry of pending.values()) {
        if (taken.length >= room || looked++ > 16 * room + 256) break;
        if (entry.due <= at) taken.push(entry);
      }
      for (const entry of taken) {
        entry.due = at + leaseMs;
        pending.delete(entry.key);
        pending.set(entry.key, entry);
        claimed.push(toDelivery(entry));
      }
      if (taken.length > 0) served.push(tenant);
    }
    // The next claim looks at the other tenants first (moved after the walk: a Map's iterator
    // would visit a tenant moved during it again).
    for (const tenant of served) {
      const pending = this.byTenant.get(tenant)!;
      this.byTenant.delete(tenant);
      this.byTenant.set(tenant, pending);
    }
    return claimed;
  }

  async complete({ tenant, key }: PendingDelivery): Promise<void> {
    const pending = this.byTenant.get(tenant);
    if (pending?.delete(key) && pending.size === 0) this.byTenant.delete(tenant);
  }

  async retry({ tenant, key }: PendingDelivery, due: Date, attempts: number): Promise<void> {
    const pending = this.byTenant.get(tenant);
    const entry = pending?.get(key);
    if (entry === undefined) return;
    pending!.delete(key);
    pending!.set(key, { ...entry, due: due.getTime(), attempts });
  }

  async trim(tenant: string, keep: number): Promise<number> {
    const pending = [...(this.byTenant.get(tenant)?.values() ?? [])];
    const oldest = pending
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, Math.max(0, pending.length - keep));
    for (const entry of oldest) await this.complete(entry);
    return oldest.length;
  }

  async size(tenant?: string): Promise<number> {
    const tenants =
      tenant === undefined ? [...this.byTenant.values()] : [this.byTenant.get(tenant)];
    return tenants.reduce((sum, pending) => sum + (pending?.size ?? 0), 0);
  }

  async close(): Promise<void> {}
}
