import { Router } from '@koa/router';
import { parsePlantId, type PlantId } from '../../domain/plant-id.js';
import type { Plant } from '../../domain/plant.js';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import type { Caller } from '../../domain/caller.js';
import { authorize, type CallerState } from './bearer-auth.js';
import { sendJson } from './error-handler.js';
import { HttpProblem } from './http-problem.js';
import { bodyBytes, parseJsonObject, readBody, requireJson } from './json-body.js';
import { nextLink, parseCursor, parseLimit, queryParam } from './pagination.js';

// Text with no quote, backslash, C0 control or surrogate is its own JSON string body.
// eslint-disable-next-line no-control-regex -- C0 controls are exactly what JSON must escape
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const jsonString = (text: string): string =>
  PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);

/** A Plant as JSON, whitelisting name and tag (never the id). */
export function plantJson(plant: Plant): string {
  const name = `{"name":${jsonString(plant.name)}`;
  return plant.tag === undefined ? `${name}}` : `${name},"tag":${jsonString(plant.tag)}}`;
}

/** A JSON array of Plants, built in one pass. */
export function plantsJson(plants: readonly Plant[]): string {
  let json = '[';
  for (let i = 0; i < plants.length; i++)
    json += i === 0 ? plantJson(plants[i]!) : `,${plantJson(plants[i]!)}`;
  return `${json}]`;
}

export interface PlantRouteOptions {
  plants: PlantUseCases;
  tokens: TokenVerifier;
  admit?: (caller: Caller) => void;
}

/** The interface's three operations, named as in the interface; each step in the contract's order. */
export function plantRoutes({ plants, tokens, admit }: PlantRouteOptions): Router<CallerState> {
  const router = new Router<CallerState>();
  const reader = authorize(tokens, 'plants:read', admit);
  const writer = authorize(tokens, 'plants:write', admit);

  router.post('/plants', writer, requireJson, readBody, async function createPlant(ctx) {
    const input = parseJsonObject(bodyBytes(ctx.request.body));
    sendJson(ctx, 200, plantJson(await plants.createPlant(ctx.state.caller, input)));
  });

  router.get('/plants', reader, async function listPlants(ctx) {
    const querystring = ctx.querystring;
    const limitText = queryParam(querystring, 'limit');
    const limit = parseLimit(limitText);
    const after = parseCursor(queryParam(querystring, 'cursor'));
    const query: { limit?: number; after?: PlantId } = {};
    if (limit !== undefined) query.limit = limit;
    if (after !== undefined) query.after = after;
    const page = await plants.listPlants(ctx.state.caller, query);
    if (page.next !== undefined) {
      ctx.set(
        'Link',
        nextLink(ctx.originalUrl.split('?', 1)[0]!, limitText as string | undefined, page.next),
      );
    }
    sendJson(ctx, 200, plantsJson(page.plants));
  });

  router.delete('/plants/:id', writer, async function deletePlant(ctx) {
    const id = parsePlantId(ctx.params.id ?? '');
    if (id === undefined) {
      throw new HttpProblem(
        400,
        40004,
        'id in the path must be a decimal int64 without sign on zero or leading zeros',
      );
    }
    await plants.deletePlant(ctx.state.caller, id);
    ctx.status = 204;
  });

  return router;
}
