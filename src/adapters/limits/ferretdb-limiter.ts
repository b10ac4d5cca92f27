import type { Collection, MongoClient } from 'mongodb';
import { RateLimiterCompatibleAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { rethrowUnlessDuplicate } from '../storage/mongodb/mongo-client.js';
import { MONGO_LIMITS_COLLECTION } from './limiter-store.js';

/** One unit used, the n-th of its key and window: `key` is `"<unit>"#<window>#<n>`, unique (indexed). */
type UnitDocument = { key: string; unit: string; window: number; expire: Date };

/**
 * Fixed windows counted on FerretDB v1, whose updates are a read and a write with nothing between:
 * RateLimiterMongo's `$inc` loses counts there (a limit of 10 let 10 to 83 a second through, 16
 * clients). Its unique index holds (SQLite), so each unit used takes a numbered place, n up to
 * `points`: a count of the window's places, then an insert of the next, the one after on a
 * duplicate. Each place is taken once, across processes too: a window admits `points` at most. A
 * decision costs a count and an insert or more (FerretDB reads the collection for each); the
 * places of ended windows are deleted once a second.
 */
export class FerretDbLimiter extends RateLimiterCompatibleAbstract {
  private readonly units: Collection<UnitDocument>;
  private swept = 0;

  constructor(
    client: MongoClient,
    database: string,
    private readonly options: { keyPrefix: string; points: number; duration: number },
  ) {
    super();
    this.keyPrefix = options.keyPrefix;
    this.units = client.db(database).collection<UnitDocument>(MONGO_LIMITS_COLLECTION);
  }

  // Fields, not the base's accessors (which throw): defined on the instance. Penalty, reward and
  // set are not supported: the base's throw.
  override readonly keyPrefix: string;
  override blockDuration = 0;
  override execEvenly = false;

  /** Uses one unit; resolves within the limit, rejects with the RateLimiterRes past it. */
  override async consume(key: string | number): Promise<RateLimiterRes> {
    const { unit, window, expire } = this.window(key);
    this.sweep();
    const place = `${JSON.stringify(unit)}#${window}#`;
    for (let n = (await this.units.countDocuments({ unit, window })) + 1; ; n++) {
      if (n > this.options.points) throw this.result(n, expire);
      const placed = { key: place + n, unit, window, expire };
      if (await this.units.insertOne(placed).then(() => true, rethrowUnlessDuplicate)) {
        return this.result(n, expire);
      }
    }
  }

  override async get(key: string | number): Promise<RateLimiterRes | null> {
    const { unit, window, expire } = this.window(key);
    const used = await this.units.countDocuments({ unit, window });
    return used === 0 ? null : this.result(used, expire);
  }

  private window(key: string | number) {
    const ms = this.options.duration * 1000;
    const window = Math.floor(Date.now() / ms);
    return { unit: `${this.keyPrefix}:${key}`, window, expire: new Date((window + 1) * ms) };
  }

  private result(used: number, expire: Date): RateLimiterRes {
    const left = Math.max(this.options.points - used, 0);
    return new RateLimiterRes(left, Math.max(expire.getTime() - Date.now(), 0), used, used === 1);
  }

  /** Deletes ended windows' units, in the background; a failure waits for the next sweep. */
  private sweep(): void {
    const now = Date.now();
    if (now - this.swept < 1000) return;
    this.swept = now;
    this.units
      .deleteMany({ unit: { $exists: true }, expire: { $lte: new Date(now) } })
      .catch(() => {});
  }
}
