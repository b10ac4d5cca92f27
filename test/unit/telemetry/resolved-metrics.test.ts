import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import {
  ResolvedCounter,
  ResolvedHistogram,
} from '../../../src/adapters/telemetry/resolved-metrics.js';

const BUCKETS = [0.0005, 0.001, 0.005, 1];
// Below the first bound, on a bound, between bounds, over the last bound, and a second series.
const OBSERVED: [string, string, number][] = [
  ['GET', '/plants', 0.0001],
  ['GET', '/plants', 0.0005],
  ['GET', '/plants', 0.003],
  ['GET', '/plants', 0.003],
  ['GET', '/plants', 7],
  ['POST', '/pl"ants\\', 0.0009],
];

/** The same metrics made by prom-client and as resolved ones, each in its own registry. */
function both(): {
  theirs: Registry;
  ours: Registry;
  histograms: [Histogram<'method' | 'route'>, ResolvedHistogram];
  counters: [Counter<'kind'>, ResolvedCounter];
} {
  const theirs = new Registry();
  const ours = new Registry();
  const histogram = { name: 'x_seconds', help: 'x help', labelNames: ['method', 'route'] as const };
  const counter = { name: 'y_total', help: 'y help', labelNames: ['kind'] as const };
  return {
    theirs,
    ours,
    histograms: [
      new Histogram({ ...histogram, buckets: BUCKETS, registers: [theirs] }),
      new ResolvedHistogram({ ...histogram, buckets: BUCKETS, registry: ours }),
    ],
    counters: [
      new Counter({ ...counter, registers: [theirs] }),
      new ResolvedCounter({ ...counter, registry: ours }),
    ],
  };
}

describe('resolved metrics', () => {
  it('scrape as the same text as prom-client’s Histogram and Counter given the same values', async () => {
    const { theirs, ours, histograms, counters } = both();
    for (const [method, route, value] of OBSERVED) {
      histograms[0].observe({ method, route }, value);
      histograms[1].series(method, route).observe(value);
    }
    for (const kind of ['static', 'jwt', 'static']) {
      counters[0].inc({ kind });
      counters[1].series(kind).inc();
    }
    const text = await ours.metrics();
    expect(text).to.equal(await theirs.metrics());
    // A host merges the service's registry into its own (docs/embedding.md).
    expect(await Registry.merge([new Registry(), ours]).metrics()).to.equal(text);
    // Not two empty scrapes: the series and their cumulative buckets are there.
    expect(text).to.include('x_seconds_bucket{le="0.001",method="GET",route="/plants"} 2\n');
    expect(text).to.include('x_seconds_bucket{le="+Inf",method="GET",route="/plants"} 5\n');
    expect(text).to.include('x_seconds_count{method="POST",route="/pl\\"ants\\\\"} 1\n');
    expect(text).to.include('y_total{kind="static"} 2\n');
  });

  it('give the same series for the same label values', async () => {
    const { ours, histograms } = both();
    const series = histograms[1].series('GET', '/plants');
    series.observe(0.002);
    histograms[1].series('GET', '/plants').observe(0.002);
    expect(await ours.metrics()).to.include('x_seconds_count{method="GET",route="/plants"} 2\n');
  });

  it('are set back to zero by the registry’s resetMetrics, and the series kept go on counting', async () => {
    const { ours, histograms, counters } = both();
    const series = histograms[1].series('GET', '/plants');
    const counted = counters[1].series('static');
    series.observe(0.002);
    counted.inc();
    ours.resetMetrics();
    let text = await ours.metrics();
    expect(text).to.include('x_seconds_count{method="GET",route="/plants"} 0\n');
    expect(text).to.include('x_seconds_bucket{le="0.005",method="GET",route="/plants"} 0\n');
    expect(text).to.include('y_total{kind="static"} 0\n');
    series.observe(0.002);
    counted.inc();
    text = await ours.metrics();
    expect(text).to.include('x_seconds_bucket{le="0.005",method="GET",route="/plants"} 1\n');
    expect(text).to.include('y_total{kind="static"} 1\n');
  });

  it('refuse a wrong number of label values', () => {
    const { histograms } = both();
    expect(() => histograms[1].series('GET')).to.throw(TypeError, /2 label values/);
  });
});
