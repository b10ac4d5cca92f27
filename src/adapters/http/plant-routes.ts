import { Router } from '@koa/router';
import { parsePlantId } from '../../domain/plant-id.js';
import type { Plant } from '../../domain/plant.js';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import type { TokenVerifier } from '../../ports/token-verifier.js';
import type { Caller } from '../../domain/caller.js';
import { authorize, type CallerState } from './bearer-auth.js';
import { sendJson } from './error-handler.js';
import { HttpProblem } from './http-problem.js';
import { bodyBytes, parseJsonObject, readBody, requireJson } from './json-body.js';
import { nextLink, parseCursor, parseLimit } from './pagination.js';

/** A Plant as JSON, whitelisting name and tag (never the id). */
export function plantJson(plant: Plant): string {
  const name = `{"name":${JSON.stringify(plant.name)}`;
  return plant.tag === undefined ? `${name}}` : `${name},"tag":${JSON.stringify(plant.tag)}}`;
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
    const limit = parseLimit(ctx.query.limit);
    const after = parseCursor(ctx.query.cursor);
    const page = await plants.listPlants(ctx.state.caller, {
      ...(limit !== undefined && { limit }),
      ...(after !== undefined && { after }),
    });
    if (page.next !== undefined) {
      ctx.set(
        'Link',
        nextLink(
          ctx.originalUrl.split('?', 1)[0]!,
          ctx.query.limit as string | undefined,
          page.next,
        ),
      );
    }
    sendJson(ctx, 200, `[${page.plants.map(plantJson).join(',')}]`);
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
