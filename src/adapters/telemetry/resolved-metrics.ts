import type { Metric, Registry } from 'prom-client';

/** One line of a scrape, as prom-client's registry reads it. */
interface Line {
  labels: Readonly<Record<string, string | number>>;
  value: number;
  metricName?: string;
}

/** One label set's running figures. */
export interface HistogramSeries {
  observe(value: number): void;
}
export interface CounterSeries {
  inc(): void;
}

interface HistogramState extends HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}
interface CounterState extends CounterSeries {
  readonly labels: Readonly<Record<string, string>>;
  value: number;
}

interface Definition {
  name: string;
  help: string;
  labelNames: readonly string[];
  registry: Registry;
}

/**
 * A metric in a prom-client registry whose series are found by one Map lookup of their joined
 * label values (or kept by a caller that knows them up front): recording is an addition (and, for a histogram, a search of its bucket
 * bounds), where prom-client's own metrics build and hash a key of the labels on every call,
 * `labels()` children included. Scraped through the registry, exactly as prom-client's metrics
 * of the same type (same lines, same order).
 */
abstract class ResolvedMetric<State extends { labels: Readonly<Record<string, string>> }> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  private readonly labelNames: readonly string[];
  private readonly states = new Map<string, State>();

  constructor({ name, help, labelNames, registry }: Definition) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `values` (in the order of `labelNames`), made on first use. */
  protected resolve(values: readonly string[], make: (labels: Record<string, string>) => State) {
    if (values.length !== this.labelNames.length) {
      throw new TypeError(`${this.name} takes ${this.labelNames.length} label values`);
    }
    const key = values.join('\u0000');
    let state = this.states.get(key);
    if (state === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      state = make(labels);
      this.states.set(key, state);
    }
    return state;
  }

  protected abstract lines(state: State): Line[];
  protected abstract zero(state: State): void;

  /** What prom-client's registry reads at a scrape. */
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    values: Line[];
    aggregator: 'sum';
  }> {
    const values = [...this.states.values()].flatMap((state) => this.lines(state));
    const { name, help, type, aggregator } = this;
    return Promise.resolve({ name, help, type, values, aggregator });
  }

  /** The registry's `resetMetrics()`: every series back to zero (callers keep theirs). */
  reset(): void {
    for (const state of this.states.values()) this.zero(state);
  }
}

/** A histogram (cumulative `_bucket` lines with `le`, `_sum`, `_count`). */
export class ResolvedHistogram extends ResolvedMetric<HistogramState> {
  readonly type = 'histogram';
  private readonly bounds: Float64Array;

  constructor(definition: Definition & { buckets: readonly number[] }) {
    super(definition);
    this.bounds = Float64Array.from(definition.buckets).sort();
  }

  /** The series of these label values; a value that is not a finite number is not recorded. */
  series(...values: string[]): HistogramSeries {
    const { bounds } = this;
    return this.resolve(values, (labels) => ({
      labels,
      counts: new Float64Array(bounds.length),
      sum: 0,
      count: 0,
      observe(value: number): void {
        if (!Number.isFinite(value)) return;
        this.sum += value;
        this.count++;
        // Counted in its own bucket only (the exposition sums them up); over the last bound, in none.
        for (let i = 0; i < bounds.length; i++) {
          if (value <= bounds[i]!) {
            this.counts[i]!++;
            return;
          }
        }
      },
    }));
  }

  protected lines({ labels, counts, sum, count }: HistogramState): Line[] {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    // `le` first, as prom-client writes it.
    const lines: Line[] = [...this.bounds].map((le, i) => {
      cumulative += counts[i]!;
      return { labels: { le, ...labels }, value: cumulative, metricName: bucket };
    });
    lines.push(
      { labels: { le: '+Inf', ...labels }, value: count, metricName: bucket },
      { labels, value: sum, metricName: `${this.name}_sum` },
      { labels, value: count, metricName: `${this.name}_count` },
    );
    return lines;
  }

  protected zero(state: HistogramState): void {
    state.counts.fill(0);
    state.sum = 0;
    state.count = 0;
  }
}

/** A counter. */
export class ResolvedCounter extends ResolvedMetric<CounterState> {
  readonly type = 'counter';

  series(...values: string[]): CounterSeries {
    return this.resolve(values, (labels) => ({
      labels,
      value: 0,
      inc(): void {
        this.value++;
      },
    }));
  }

  protected lines({ labels, value }: CounterState): Line[] {
    return [{ labels, value }];
  }

  protected zero(state: CounterState): void {
    state.value = 0;
  }
}
