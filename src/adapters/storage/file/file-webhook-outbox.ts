import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PlantError } from '../../../domain/errors.js';
import { eventBody, type PlantEvent, type WebhookEventType } from '../../../domain/webhook.js';
import type { PendingDelivery, WebhookOutbox } from '../../../ports/webhook-outbox.js';
import { newEventId } from '../../../application/webhook-ids.js';
import { readBounded } from './bounded-read.js';
import { writeAtomically } from './locked-file.js';

type Entry = Omit<PendingDelivery, 'attempts'> & { attempts: number; due: number };
type Line =
  | { op: 'add'; entry: Omit<Entry, 'createdAt'> & { createdAt: number } }
  | { op: 'retry'; key: string; due: number; attempts: number }
  | { op: 'done'; key: string };

/** Which subscriptions of a tenant want an event: the subscription store answers. */
export type Targets = (tenant: string, type: WebhookEventType) => Promise<string[]>;

// Lines that need no fsync wait at most this long, or this many, for one write together.
const LATER_MS = 100;
const LATER_LINES = 1024;

// Rewrite the journal once this many lines are obsolete and they outnumber the live ones twice.
const COMPACT_AFTER = 10_000;

// The journal is this program's own file, just renamed into place: a symlink there is never followed.
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;

const addLine = (entry: Entry): string =>
  `${JSON.stringify({ op: 'add', entry: { ...entry, createdAt: entry.createdAt.getTime() } })}\n`;

/**
 * The outbox of the memory storage: an append-only journal file (one JSON line per recorded
 * delivery, retry and completion). A recorded event is fsynced before the create is answered,
 * so it is delivered after any crash, although the plant itself (in memory) is gone. Appends of
 * concurrent creates share one fsync. One process owns the journal; it is compacted at start-up
 * and whenever mostly obsolete.
 */
export class FileWebhookOutbox implements WebhookOutbox {
  private readonly entries = new Map<string, Entry>();
  /** The same entries by tenant, in the order a claim looks at them. */
  private readonly byTenant = new Map<string, Map<string, Entry>>();
  private queue: { text: string; sync: boolean; settle: (error?: unknown) => void }[] = [];
  private writing = false;
  private later: string[] = [];
  private laterTimer: NodeJS.Timeout | undefined;
  private obsolete = 0;

  private constructor(
    readonly path: string,
    private handle: FileHandle,
    private readonly targets: Targets,
  ) {}

  /** Replays and compacts the journal, then opens it for appending. */
  static async open(path: string, targets: Targets): Promise<FileWebhookOutbox> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const text = await readBounded(path, { maxBytes: Infinity, follow: false }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      },
    );
    const entries = replay(text);
    await writeAtomically(path, [...entries.values()].map(addLine).join(''));
    const outbox = new FileWebhookOutbox(path, await open(path, APPEND), targets);
    for (const entry of entries.values()) outbox.remember(entry);
    return outbox;
  }

  /** Records the event for the tenant's subscribers, durably; resolves at once when it has none. */
  async record(tenant: string, event: PlantEvent): Promise<void> {
    const subscriptions = await this.targets(tenant, event.type);
    if (subscriptions.length === 0) return;
    const eventId = newEventId();
    const body = eventBody(event);
    const now = Date.now();
    const entries = subscriptions.map((subscriptionId): Entry => ({
      key: `${eventId}:${subscriptionId}`,
      tenant,
      subscriptionId,
      eventId,
      type: event.type,
      body,
      attempts: 0,
      createdAt: new Date(now),
      due: now,
    }));
    try {
      await this.append(entries.map(addLine).join(''), true);
    } catch (error) {
      const unavailable = new PlantError('storage-unavailable', 'storage is unavailable');
      unavailable.cause = error;
      throw unavailable;
    }
    for (const entry of entries) this.remember(entry);
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
      // A claimed or retried entry moves to the end of its tenant's order, so what is due is
      // found first; the walk is bounded all the same, so that a backlog of entries that are not
      // due never makes every claim walk all of them.
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
        claimed.push({ ...entry });
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

  async complete(delivery: PendingDelivery): Promise<void> {
    if (!this.forget(delivery.key)) return;
    this.obsolete += 2;
    // Not fsynced nor waited for: a completion lost in a crash only means one more delivery.
    // Completions queued together go out in one write.
    this.appendLater(`{"op":"done","key":${JSON.stringify(delivery.key)}}\n`);
  }

  async retry(delivery: PendingDelivery, due: Date, attempts: number): Promise<void> {
    const entry = this.entries.get(delivery.key);
    if (entry === undefined) return;
    entry.due = due.getTime();
    entry.attempts = attempts;
    const pending = this.byTenant.get(entry.tenant)!;
    pending.delete(entry.key);
    pending.set(entry.key, entry);
    this.obsolete += 1;
    const line: Line = { op: 'retry', key: delivery.key, due: entry.due, attempts };
    // Like a completion: lost in a crash, the delivery is only tried again sooner.
    this.appendLater(`${JSON.stringify(line)}\n`);
  }

  private remember(entry: Entry): void {
    this.entries.set(entry.key, entry);
    let pending = this.byTenant.get(entry.tenant);
    if (pending === undefined) {
      pending = new Map();
      this.byTenant.set(entry.tenant, pending);
    }
    pending.set(entry.key, entry);
  }

  private forget(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    const pending = this.byTenant.get(entry.tenant)!;
    pending.delete(key);
    if (pending.size === 0) this.byTenant.delete(entry.tenant);
    return true;
  }

  /** An outbox that replays its journal at its first use (an unusable one: storage-unavailable). */
  static lazy(path: string, targets: Targets): WebhookOutbox & Pick<FileWebhookOutbox, 'record'> {
    let opened: Promise<FileWebhookOutbox> | undefined;
    const outbox = () =>
      (opened ??= FileWebhookOutbox.open(path, targets).catch((error) => {
        opened = undefined;
        const unavailable = new PlantError('storage-unavailable', 'storage is unavailable');
        unavailable.cause = error;
        throw unavailable;
      }));
    return {
      record: async (tenant, event) => (await outbox()).record(tenant, event),
      claim: async (...args) => (await outbox()).claim(...args),
      complete: async (delivery) => (await outbox()).complete(delivery),
      retry: async (...args) => (await outbox()).retry(...args),
      size: async (tenant) => (await outbox()).size(tenant),
      close: async () => {
        if (opened !== undefined) await (await opened).close();
      },
    };
  }

  async size(tenant?: string): Promise<number> {
    if (tenant === undefined) return this.entries.size;
    return this.byTenant.get(tenant)?.size ?? 0;
  }

  async close(): Promise<void> {
    await this.append('', true);
    await this.handle.close();
  }

  /**
   * Appends without waiting, nor failing: for lines whose loss a crash could cause anyway
   * (completions, retries). They are held for at most LATER_MS, or go with the next durable
   * append, so that a write (~35 µs of CPU here) serves many of them instead of each.
   */
  private appendLater(text: string): void {
    this.later.push(text);
    if (this.later.length >= LATER_LINES) this.flushLater();
    else if (this.laterTimer === undefined) {
      this.laterTimer = setTimeout(() => this.flushLater(), LATER_MS);
      this.laterTimer.unref();
    }
  }

  private flushLater(): void {
    this.takeLater();
    void this.drain();
  }

  /** Queues the held lines ahead of whatever is appended next. */
  private takeLater(): void {
    clearTimeout(this.laterTimer);
    this.laterTimer = undefined;
    if (this.later.length === 0) return;
    this.queue.push({ text: this.later.join(''), sync: false, settle: () => {} });
    this.later = [];
  }

  private append(text: string, sync: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.takeLater();
      this.queue.push({ text, sync, settle: (error) => (error ? reject(error) : resolve()) });
      void this.drain();
    });
  }

  /** One writer: each round writes everything queued, with one fsync when any of it needs one. */
  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          const text = batch.map((item) => item.text).join('');
          if (text !== '') await this.handle.write(text);
          if (batch.some((item) => item.sync)) await this.handle.datasync();
          for (const item of batch) item.settle();
        } catch (error) {
          for (const item of batch) item.settle(error);
        }
        if (this.obsolete > COMPACT_AFTER && this.obsolete > 2 * this.entries.size) {
          await this.compact().catch(() => {});
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async compact(): Promise<void> {
    await writeAtomically(this.path, [...this.entries.values()].map(addLine).join(''));
    const previous = this.handle;
    this.handle = await open(this.path, APPEND);
    this.obsolete = 0;
    await previous.close();
  }
}

/** The live entries of a journal; a torn last line (a crash mid-append) is ignored. */
function replay(text: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      continue;
    }
    if (line.op === 'add') {
      const { entry } = line;
      entries.set(entry.key, { ...entry, createdAt: new Date(entry.createdAt) });
    } else if (line.op === 'retry') {
      const entry = entries.get(line.key);
      if (entry) Object.assign(entry, { due: line.due, attempts: line.attempts });
    } else if (line.op === 'done') {
      entries.delete(line.key);
    }
  }
  return entries;
}
