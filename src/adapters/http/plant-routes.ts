import { Router } from '@koa/router';
import type { Context } from 'koa';
import { jsonString } from '../../domain/json-text.js';
import { parsePlantId, type PlantId } from '../../domain/plant-id.js';
import type { NewPlant, Plant } from '../../domain/plant.js';
import type { PlantUseCases } from '../../ports/plant-use-cases.js';
import type { Authorize } from './bearer-auth.js';
import { problem } from './error-catalogue.js';
import { parseJsonObject, readBody, requireJson } from './json-body.js';
import { nextLink, pageParams, parseCursor, parseLimit } from './pagination.js';
import { callerOf, mountPrefix } from './request-state.js';

/** A Plant as JSON, whitelisting name and tag (never the id). */
function plantJson(plant: Plant): string {
  const name = `{"name":${jsonString(plant.name)}`;
  return plant.tag === undefined ? `${name}}` : `${name},"tag":${jsonString(plant.tag)}}`;
}

/**
 * Answers JSON written here, through Koa's ctx.body (a host's middleware still sees it).
 * perf: Koa's own JSON (`ctx.body = plants`) costs a GET 15% of its instructions (bench/instructions.ts).
 */
function answerJson(ctx: Context, json: string): void {
  ctx.type = 'json';
  ctx.body = json;
}

/** The `{id}` path parameter, or the contract's invalid-id (40004). */
function idOf(ctx: Context & { params: Record<string, string | undefined> }): PlantId {
  const id = parsePlantId(ctx.params.id ?? '');
  if (id === undefined) throw problem('invalid-id');
  return id;
}

/** The interface's three operations and `GET /plants/{id}`, each step in the contract's order. */
export function plantRoutes(plants: PlantUseCases, authorized: Authorize): Router {
  const router = new Router();

  router.post('/plants', authorized('createPlant'), requireJson, async function createPlant(ctx) {
    // Untyped JSON: createPlant checks every field at run time; the cast skips the compile-time one.
    const input = parseJsonObject(await readBody(ctx.req)) as unknown as NewPlant;
    answerJson(ctx, plantJson(await plants.createPlant(callerOf(ctx), input)));
  });

  router.get('/plants', authorized('listPlants'), async function listPlants(ctx) {
    const { limit, cursor, tags } = pageParams(ctx.querystring);
    const filter = tags === undefined ? undefined : [tags].flat();
    const query = { limit: parseLimit(limit), after: parseCursor(cursor), tags: filter };
    const page = await plants.listPlants(callerOf(ctx), query);
    answerJson(ctx, `[${page.plants.map(plantJson).join(',')}]`);
    if (page.next === undefined) return;
    // The path alone (under a mount, with its prefix): an absolute-form target
    // (`GET http://host/plants`) must not pick the host.
    const path = mountPrefix(ctx.mountPath) + ctx.path;
    ctx.set('Link', nextLink(path, page.next, limit as string | undefined, query.tags));
  });

  router.get('/plants/:id', authorized('getPlant'), async function getPlant(ctx) {
    answerJson(ctx, plantJson(await plants.getPlant(callerOf(ctx), idOf(ctx))));
  });

  router.delete('/plants/:id', authorized('deletePlant'), async function deletePlant(ctx) {
    await plants.deletePlant(callerOf(ctx), idOf(ctx));
    ctx.status = 204;
  });

  return router;
}
