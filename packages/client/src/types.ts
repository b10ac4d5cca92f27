import type { PlantIdInput } from './plant-id.js';
import type { RetryOptions } from './retry-policy.js';

/** A plant as the service answers it: never with its id. */
export interface Plant {
  name: string;
  tag?: string | undefined;
}

/** A plant to create; the id is sent as an exact JSON integer, and an undefined tag is left out. */
export interface NewPlant {
  id: PlantIdInput;
  name: string;
  tag?: string | undefined;
}

/** One page; `next` is the cursor of the following page (from `Link: rel="next"`), when there is one. */
export interface PlantPage {
  plants: Plant[];
  next?: string;
}

export interface CallOptions {
  /** Aborts the call (retries included); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number;
}

export interface ListOptions extends CallOptions {
  /** Plants a page (the service's default is 100, its cap 1000). */
  limit?: number;
  /** Where to continue: a PlantPage's `next`. */
  cursor?: string;
  /**
   * Only the plants whose tag is one of these (`?tags=a&tags=b`; 1 to 20 tags of at most 64
   * characters, `''` being a tag too). Give the same tags with a `cursor` as on its first page.
   */
  tags?: readonly string[];
}

/** Told before each retry's wait, e.g. for logging. */
export interface RetryEvent {
  method: string;
  url: string;
  status: number;
  code: number | undefined;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
}

export interface PlantStoreClientOptions {
  /** Where the service is mounted: `http://127.0.0.1:8080`, or `https://example.com/api` under a prefix. */
  baseUrl: string | URL;
  /** The bearer token, or a function that resolves it before every request (for tokens that rotate). */
  token: string | (() => string | Promise<string>);
  /** The longest a call may take, retries and their waits included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Retries of 429 and 503 answers; `false` turns them off. See RetryOptions for the defaults. */
  retry?: RetryOptions | false;
  /** Called before each retry's wait. */
  onRetry?: (event: RetryEvent) => void;
  /** A fetch of your own (a proxy agent, instrumentation); default the global fetch. */
  fetch?: typeof fetch;
}
