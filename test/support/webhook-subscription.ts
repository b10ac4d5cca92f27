import { randomBytes } from 'node:crypto';
import type { WebhookSubscription } from '../../src/domain/webhook.js';

/** An enabled subscription of the tenant to plant.created, with an id and secret of its own. */
export const newSubscription = (
  tenant: string,
  overrides: Partial<WebhookSubscription> = {},
): WebhookSubscription => ({
  id: `wh_${randomBytes(8).toString('hex')}`,
  tenant,
  url: 'https://receiver.example/hooks',
  secret: `whsec_${randomBytes(32).toString('base64')}`,
  events: ['plant.created'],
  enabled: true,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  health: { failures: 0 },
  ...overrides,
});
