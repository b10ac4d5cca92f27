import { CallScope } from './call-scope.js';
import { PlantStoreNetworkError, PlantStoreResponseError } from './errors.js';
import { stringifyExactJson } from './exact-json.js';
import { nextLink } from './link-header.js';
import { toPlantId, type PlantIdInput } from './plant-id.js';
import { answerError, isPlant, readJson, unexpectedAnswer, type Answer } from './responses.js';
import {
  parseRetryAfter,
  RETRYABLE_STATUSES,
  retryDelay,
  retryPolicy,
  type RetryPolicy,
} from './retry-policy.js';
import type {
  CallOptions,
  ListOptions,
  NewPlant,
  Plant,
  PlantPage,
  PlantStoreClientOptions,
  RetryEvent,
} from './types.js';

const DEFAULT_TIMEOUT_MS = 10_000;

function checkTimeout(timeoutMs: number): number {
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be above 0, got ${timeoutMs}`);
  return timeoutMs;
}

/**
 * A typed client of the plant store's HTTP interface, for Node 20+ and browsers (it needs only
 * `fetch`). Ids are bigints, sent and read exactly; failures reject with PlantStoreError subclasses.
 */
export class PlantStoreClient {
  private readonly base: URL;
  private readonly token: PlantStoreClientOptions['token'];
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly onRetry: ((event: RetryEvent) => void) | undefined;
  private readonly fetch: typeof fetch;

  constructor(options: PlantStoreClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.search !== '' || base.hash !== '') {
      throw new TypeError(`baseUrl must have no query or fragment: ${base.href}`);
    }
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.base = base;
    this.token = options.token;
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.retry = retryPolicy(options.retry);
    this.onRetry = options.onRetry;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Creates the plant (POST /plants); resolves it as stored. See docs/client.md on 409 after a retried 503. */
  async createPlant(plant: NewPlant, options: CallOptions = {}): Promise<Plant> {
    const id = toPlantId(plant.id);
    // Only the known fields; an undefined tag is left out, as JSON.stringify would.
    const body = stringifyExactJson({ id, name: plant.name, tag: plant.tag });
    const url = new URL('plants', this.base);
    const answer = await this.call('POST', url, options, body);
    const created = readJson(answer.text);
    if (!isPlant(created)) throw unexpectedAnswer(`POST ${url.href}`, answer, 'a Plant');
    return created;
  }

  /** The plant with this id (GET /plants/{id}); rejects with 404 (40401) when there is none. */
  async getPlant(id: PlantIdInput, options: CallOptions = {}): Promise<Plant> {
    const url = new URL(`plants/${toPlantId(id)}`, this.base);
    const answer = await this.call('GET', url, options);
    const plant = readJson(answer.text);
    if (!isPlant(plant)) throw unexpectedAnswer(`GET ${url.href}`, answer, 'a Plant');
    return plant;
  }

  /** One page of plants by ascending id (GET /plants), of the given tags when `tags` is set. */
  async listPlants(options: ListOptions = {}): Promise<PlantPage> {
    const { plants, nextUrl } = await this.page(this.listUrl(options), options);
    if (nextUrl === undefined) return { plants };
    const cursor = nextUrl.searchParams.get('cursor');
    if (cursor === null)
      throw new PlantStoreResponseError(200, 'Link rel="next" has no cursor', '');
    return { plants, next: cursor };
  }

  /**
   * Every plant (of the given tags, when `tags` is set) by ascending id, page after page,
   * following `Link: rel="next"` as given (it keeps the filter).
   */
  async *allPlants(options: ListOptions = {}): AsyncGenerator<Plant, void, undefined> {
    let url: URL | undefined = this.listUrl(options);
    while (url !== undefined) {
      const page: { plants: Plant[]; nextUrl?: URL } = await this.page(url, options);
      yield* page.plants;
      url = page.nextUrl;
    }
  }

  /** Deletes the plant (DELETE /plants/{id}); rejects with 404 (40401) when there is none. */
  async deletePlant(id: PlantIdInput, options: CallOptions = {}): Promise<void> {
    const exact = toPlantId(id);
    await this.call('DELETE', new URL(`plants/${exact}`, this.base), options);
  }

  private listUrl({ limit, cursor, tags }: ListOptions): URL {
    const url = new URL('plants', this.base);
    if (limit !== undefined) url.searchParams.set('limit', String(limit));
    if (cursor !== undefined) url.searchParams.set('cursor', cursor);
    if (tags !== undefined) {
      // No tags would be sent as no filter at all: every plant instead of none.
      if (tags.length === 0) throw new RangeError('tags must name at least one tag');
      for (const tag of tags) url.searchParams.append('tags', tag);
    }
    return url;
  }

  private async page(url: URL, options: CallOptions): Promise<{ plants: Plant[]; nextUrl?: URL }> {
    const answer = await this.call('GET', url, options);
    const plants = readJson(answer.text);
    if (!Array.isArray(plants) || !plants.every(isPlant)) {
      throw unexpectedAnswer(`GET ${url.href}`, answer, 'an array of Plants');
    }
    const nextUrl = nextLink(answer.response.headers.get('Link'), url);
    if (nextUrl === undefined) return { plants };
    // The token goes only where the client was pointed, whatever a Link says.
    if (nextUrl.origin !== this.base.origin) {
      throw new PlantStoreResponseError(200, `Link rel="next" leaves ${this.base.origin}`, '');
    }
    return { plants, nextUrl };
  }

  /** Sends the request, retrying 429 and 503 as the policy allows, within one timeout. */
  private async call(
    method: string,
    url: URL,
    options: CallOptions,
    body?: string,
  ): Promise<Answer> {
    const scope = new CallScope(checkTimeout(options.timeoutMs ?? this.timeoutMs), options.signal);
    try {
      const retried: number[] = [];
      for (;;) {
        const answer = await this.attempt(method, url, body, scope);
        const { status } = answer.response;
        if (answer.response.ok) return answer;
        const error = answerError(`${method} ${url.href}`, answer, retried);
        const delayMs = this.delayBeforeRetry(answer.response, retried.length + 1, scope);
        if (delayMs === undefined) throw error;
        const retry = retried.push(status);
        this.onRetry?.({ method, url: url.href, status, code: error.code, retry, delayMs });
        await scope.sleep(delayMs);
      }
    } finally {
      scope.dispose();
    }
  }

  /** One request and its whole body; an abort or a timeout rejects with the scope's reason. */
  private async attempt(
    method: string,
    url: URL,
    body: string | undefined,
    scope: CallScope,
  ): Promise<Answer> {
    const token = typeof this.token === 'function' ? await this.token() : this.token;
    const headers = new Headers({ Accept: 'application/json', Authorization: `Bearer ${token}` });
    if (body !== undefined) headers.set('Content-Type', 'application/json');
    scope.throwIfAborted();
    try {
      // No redirects: the service never sends one, and following it could turn a POST into a GET.
      const init = { method, headers, signal: scope.signal, redirect: 'error' as const };
      const response = await this.fetch(url, body === undefined ? init : { ...init, body });
      return { response, text: await response.text() };
    } catch (error) {
      if (scope.signal.aborted) throw scope.signal.reason;
      const reason = error instanceof Error ? error.message : String(error);
      throw new PlantStoreNetworkError(`${method} ${url.href} failed: ${reason}`, error);
    }
  }

  private delayBeforeRetry(
    response: Response,
    retry: number,
    scope: CallScope,
  ): number | undefined {
    if (!RETRYABLE_STATUSES.includes(response.status)) return undefined;
    const retryAfterMs = parseRetryAfter(response.headers.get('Retry-After'));
    const delayMs = retryDelay(this.retry, retry, retryAfterMs);
    // A wait that would outlast the timeout only delays the same answer: give it now.
    return delayMs !== undefined && delayMs < scope.remainingMs() ? delayMs : undefined;
  }
}
