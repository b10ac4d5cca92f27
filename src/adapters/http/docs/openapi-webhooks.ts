const signatureHeader = (name: string, description: string, pattern: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', pattern },
});

/** The OpenAPI 3.1 `webhooks` of the service: what a subscribed receiver is sent (docs/webhooks.md). */
export const openApiWebhooks = {
  'plant.created': {
    post: {
      operationId: 'plantCreated',
      summary: 'A plant was created in the subscribed tenant',
      description:
        'Sent to each enabled subscription of the tenant (`plant-store webhooks add`) after a create answered 200, ' +
        'at least once: retried with exponential backoff and jitter until a 2xx, and possibly more than once, ' +
        'always with the same `webhook-id`. Signed per Standard Webhooks: verify with the `standardwebhooks` ' +
        'package and the subscription secret (`whsec_...`). The body is exactly the created `NewPlant`; ' +
        '`id` is an exact JSON integer over the whole int64 range (parse it without doubles).',
      security: [],
      parameters: [
        signatureHeader(
          'webhook-id',
          'The event id: the same for every attempt and every receiver of one event; use it to drop duplicates.',
          '^msg_[A-Za-z0-9_-]+$',
        ),
        signatureHeader(
          'webhook-timestamp',
          'Seconds since the Unix epoch when this attempt was signed; refuse it when far from now.',
          '^[0-9]+$',
        ),
        signatureHeader(
          'webhook-signature',
          'Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` keyed by the secret.',
          '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$',
        ),
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
      },
      responses: {
        '200': {
          description:
            'Received. Any 2xx acknowledges; anything else, a redirect, no answer within the timeout or a ' +
            'refused connection is a failure that is retried.',
        },
      },
    },
  },
} as const;
