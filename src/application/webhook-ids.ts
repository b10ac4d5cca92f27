import { randomBytes } from 'node:crypto';

/** A new subscription id: `wh_` and 16 hex digits. */
export const newSubscriptionId = (): string => `wh_${randomBytes(8).toString('hex')}`;

export const SUBSCRIPTION_ID = /^wh_[0-9a-f]{16}$/;

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks expects. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** A new event id (the `webhook-id`): `msg_` and 16 random bytes in base64url. */
export const newEventId = (): string => `msg_${randomBytes(16).toString('base64url')}`;
