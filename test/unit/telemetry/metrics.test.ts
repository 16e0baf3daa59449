import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { NotFoundError } from '../../../src/domain/errors';
import { createMetrics, type Metrics } from '../../../src/adapters/telemetry/metrics';
import { parseExposition, samplesOf, type ParsedExposition } from './exposition-parser';

const SCOPE = { otel_scope_name: 'github.com/flipt-io/flipt' };

describe('Vexil metrics', () => {
  let metrics: Metrics;
  afterEach(() => metrics.close());

  const scrape = async (): Promise<ParsedExposition> => parseExposition(await metrics.render());

  describe('enabled', () => {
    beforeEach(() => {
      metrics = createMetrics({ enabled: true });
    });

    it('counts evaluation requests and boolean results with Flipt names and labels', async () => {
      for (let i = 0; i < 3; i++) {
        metrics.evaluated({
          namespaceKey: 'default',
          flagKey: 'dark-mode',
          durationMs: 2,
          boolean: { enabled: true, reason: 'MATCH_EVALUATION_REASON' },
        });
      }
      metrics.evaluated({
        namespaceKey: 'default',
        flagKey: 'dark-mode',
        durationMs: 30,
        boolean: { enabled: false, reason: 'DEFAULT_EVALUATION_REASON' },
      });
      const parsed = await scrape();
      expect(samplesOf(parsed, 'flipt_evaluations_requests_total')).toEqual([
        {
          name: 'flipt_evaluations_requests_total',
          labels: { namespace: 'default', flag: 'dark-mode', ...SCOPE },
          value: 4,
        },
      ]);
      expect(samplesOf(parsed, 'flipt_evaluations_results_total')).toEqual([
        {
          name: 'flipt_evaluations_results_total',
          labels: {
            namespace: 'default',
            flag: 'dark-mode',
            value: 'true',
            reason: 'MATCH_EVALUATION_REASON',
            type: 'boolean',
            ...SCOPE,
          },
          value: 3,
        },
        {
          name: 'flipt_evaluations_results_total',
          labels: {
            namespace: 'default',
            flag: 'dark-mode',
            value: 'false',
            reason: 'DEFAULT_EVALUATION_REASON',
            type: 'boolean',
            ...SCOPE,
          },
          value: 1,
        },
      ]);
    });

    it('labels variant results with match, first segment, v1 reason and variant key', async () => {
      metrics.evaluated({
        namespaceKey: 'prod',
        flagKey: 'colour',
        durationMs: 1,
        variant: {
          match: true,
          legacyReason: 'MATCH_EVALUATION_REASON',
          segmentKeys: ['beta', 'staff'],
          variantKey: 'blue',
        },
      });
      metrics.evaluated({
        namespaceKey: 'prod',
        flagKey: 'colour',
        durationMs: 1,
        variant: {
          match: false,
          legacyReason: 'UNKNOWN_EVALUATION_REASON',
          segmentKeys: [],
          variantKey: '',
        },
      });
      const results = samplesOf(await scrape(), 'flipt_evaluations_results_total');
      expect(results.map((s) => [s.labels, s.value])).toEqual([
        [
          {
            namespace: 'prod',
            flag: 'colour',
            match: 'true',
            segment: 'beta',
            reason: 'MATCH_EVALUATION_REASON',
            value: 'blue',
            type: 'variant',
            ...SCOPE,
          },
          1,
        ],
        [
          {
            namespace: 'prod',
            flag: 'colour',
            match: 'false',
            segment: '',
            reason: 'UNKNOWN_EVALUATION_REASON',
            value: '',
            type: 'variant',
            ...SCOPE,
          },
          1,
        ],
      ]);
    });

    it('counts errors and observes latency in milliseconds with the OTel default buckets', async () => {
      metrics.evaluated({
        namespaceKey: 'default',
        flagKey: 'f',
        durationMs: 7,
        error: new Error(),
      });
      metrics.evaluated({
        namespaceKey: 'default',
        flagKey: 'f',
        durationMs: 12000,
        boolean: { enabled: true, reason: 'DEFAULT_EVALUATION_REASON' },
      });
      const parsed = await scrape();
      expect(samplesOf(parsed, 'flipt_evaluations_errors_total').map((s) => s.value)).toEqual([1]);
      const buckets = samplesOf(parsed, 'flipt_evaluations_latency_milliseconds_bucket');
      expect(buckets.map((b) => b.labels.le)).toEqual([
        '0',
        '5',
        '10',
        '25',
        '50',
        '75',
        '100',
        '250',
        '500',
        '750',
        '1000',
        '2500',
        '5000',
        '7500',
        '10000',
        '+Inf',
      ]);
      expect(buckets.find((b) => b.labels.le === '5')?.value).toBe(0);
      expect(buckets.find((b) => b.labels.le === '10')?.value).toBe(1);
      expect(buckets.find((b) => b.labels.le === '10000')?.value).toBe(1);
      expect(buckets.find((b) => b.labels.le === '+Inf')?.value).toBe(2);
      expect(samplesOf(parsed, 'flipt_evaluations_latency_milliseconds_sum')[0]?.value).toBe(12007);
      expect(buckets[0]?.labels).toMatchObject({ namespace: 'default', flag: 'f', ...SCOPE });
    });

    it('folds flags beyond the series cap into namespace="other", flag="other"', async () => {
      metrics.close();
      metrics = createMetrics({ enabled: true, maxSeries: 5, processMetrics: false });
      for (let i = 0; i < 50; i++) {
        metrics.evaluated({
          namespaceKey: 'default',
          flagKey: `flag-${i}`,
          durationMs: 1,
          boolean: { enabled: true, reason: 'DEFAULT_EVALUATION_REASON' },
        });
      }
      const parsed = await scrape();
      const requests = samplesOf(parsed, 'flipt_evaluations_requests_total');
      expect(requests).toHaveLength(6);
      expect(requests[5]).toMatchObject({
        labels: { namespace: 'other', flag: 'other' },
        value: 45,
      });
      expect(samplesOf(parsed, 'flipt_evaluations_results_total').length).toBeLessThanOrEqual(6);
      expect(requests.reduce((n, s) => n + s.value, 0)).toBe(50);
    });

    it('records HTTP requests by method, route pattern and status', async () => {
      metrics.recordHttp('POST', '/evaluate/v1/boolean', 200, 0.002);
      metrics.recordHttp('POST', '/evaluate/v1/boolean', 200, 0.3);
      metrics.recordHttp('GET', undefined, 404, 0.001);
      metrics.recordHttp('BREW', '/x', 999, 0.001);
      const parsed = await scrape();
      expect(
        samplesOf(parsed, 'vexil_http_requests_total').map((s) => [s.labels, s.value]),
      ).toEqual([
        [{ method: 'POST', route: '/evaluate/v1/boolean', status: '200' }, 2],
        [{ method: 'GET', route: 'unmatched', status: '404' }, 1],
        [{ method: 'other', route: '/x', status: 'other' }, 1],
      ]);
      const count = samplesOf(parsed, 'vexil_http_request_duration_seconds_count');
      expect(count[0]).toMatchObject({ value: 2 });
      expect(parsed.types.get('vexil_http_request_duration_seconds')).toBe('histogram');
      // 999 on a matched route is an error; the unmatched 404 never reached an API.
      expect(samplesOf(parsed, 'flipt_server_errors_total')[0]?.value).toBe(1);
    });

    it('keeps interleaved routes, methods, statuses and flags apart', async () => {
      const calls: Array<[string, string | undefined, number]> = [
        ['POST', '/a', 200],
        ['POST', '/a', 200],
        ['POST', '/a', 404],
        ['POST', '/b', 200],
        ['GET', '/a', 200],
        ['POST', '/a', 200],
        ['POST', undefined, 404],
        ['POST', '', 404],
      ];
      for (const [method, route, status] of calls) metrics.recordHttp(method, route, status, 0.001);
      for (const [ns, flag] of [
        ['default', 'f'],
        ['default', 'f'],
        ['other', 'f'],
        ['default', 'g'],
        ['default', 'f'],
      ] as const) {
        metrics.evaluated({
          namespaceKey: ns,
          flagKey: flag,
          durationMs: 1,
          boolean: { enabled: true, reason: 'MATCH_EVALUATION_REASON' },
        });
      }
      const parsed = await scrape();
      expect(
        samplesOf(parsed, 'vexil_http_requests_total').map((s) => [s.labels, s.value]),
      ).toEqual([
        [{ method: 'POST', route: '/a', status: '200' }, 3],
        [{ method: 'POST', route: '/a', status: '404' }, 1],
        [{ method: 'POST', route: '/b', status: '200' }, 1],
        [{ method: 'GET', route: '/a', status: '200' }, 1],
        [{ method: 'POST', route: 'unmatched', status: '404' }, 2],
      ]);
      expect(samplesOf(parsed, 'flipt_server_errors_total')[0]?.value).toBe(1);
      expect(
        samplesOf(parsed, 'flipt_evaluations_requests_total').map((s) => [
          s.labels['namespace'],
          s.labels['flag'],
          s.value,
        ]),
      ).toEqual([
        ['default', 'f', 3],
        ['other', 'f', 1],
        ['default', 'g', 1],
      ]);
    });

    it('records gRPC calls with go-grpc-prometheus names and counts failures as server errors', async () => {
      metrics.recordGrpc('flipt.evaluation.EvaluationService', 'Boolean', 0, 0.001);
      metrics.recordGrpc('flipt.Flipt', 'GetFlag', 5, 0.002);
      metrics.recordGrpc('flipt.Flipt', 'GetFlag', 'Unavailable', 0.002);
      const parsed = await scrape();
      expect(samplesOf(parsed, 'grpc_server_handled_total').map((s) => s.labels)).toEqual([
        {
          grpc_type: 'unary',
          grpc_service: 'flipt.evaluation.EvaluationService',
          grpc_method: 'Boolean',
          grpc_code: 'OK',
        },
        {
          grpc_type: 'unary',
          grpc_service: 'flipt.Flipt',
          grpc_method: 'GetFlag',
          grpc_code: 'NotFound',
        },
        {
          grpc_type: 'unary',
          grpc_service: 'flipt.Flipt',
          grpc_method: 'GetFlag',
          grpc_code: 'Unavailable',
        },
      ]);
      expect(samplesOf(parsed, 'grpc_server_handling_seconds_count').map((s) => s.value)).toEqual([
        1, 2,
      ]);
      expect(samplesOf(parsed, 'flipt_server_errors_total')).toEqual([
        { name: 'flipt_server_errors_total', labels: SCOPE, value: 2 },
      ]);
    });

    it('records cache outcomes, db errors and snapshot rebuilds', async () => {
      metrics.recordCache('memory', 'hit');
      metrics.recordCache('memory', 'hit');
      metrics.recordCache('redis', 'miss');
      metrics.recordCache('redis', 'error');
      metrics.recordDbError('postgres');
      metrics.rebuilt('default', 12);
      metrics.servedStale('default', new Error('db down'));
      const parsed = await scrape();
      expect(samplesOf(parsed, 'flipt_cache_hit_total')).toEqual([
        { name: 'flipt_cache_hit_total', labels: { cache: 'memory', ...SCOPE }, value: 2 },
      ]);
      expect(samplesOf(parsed, 'flipt_cache_miss_total')[0]?.labels.cache).toBe('redis');
      expect(samplesOf(parsed, 'flipt_cache_error_total')[0]?.value).toBe(1);
      expect(samplesOf(parsed, 'vexil_db_errors_total')).toEqual([
        { name: 'vexil_db_errors_total', labels: { dialect: 'postgres' }, value: 1 },
      ]);
      expect(samplesOf(parsed, 'vexil_snapshot_rebuild_seconds_sum')[0]).toMatchObject({
        labels: { namespace: 'default' },
        value: 0.012,
      });
      expect(samplesOf(parsed, 'vexil_snapshot_stale_served_total')[0]?.value).toBe(1);
    });

    it('computes snapshot ages, pool use and custom gauges at scrape time', async () => {
      let age = 1500;
      metrics.observeSnapshotAges(() => [{ namespaceKey: 'default', ageMs: age }]);
      metrics.registerDbPool('postgres', () => ({ maxOpen: 10, inUse: 3, idle: 2, waiting: 0 }));
      metrics.registerGauge('vexil_build_info', 'Build.', ['version'], () => [
        { labels: ['1.2.3'], value: 1 },
      ]);
      expect(samplesOf(await scrape(), 'vexil_snapshot_age_seconds')[0]?.value).toBe(1.5);
      age = 4000;
      const parsed = await scrape();
      expect(samplesOf(parsed, 'vexil_snapshot_age_seconds')).toEqual([
        { name: 'vexil_snapshot_age_seconds', labels: { namespace: 'default' }, value: 4 },
      ]);
      expect(samplesOf(parsed, 'db_sql_connection_max_open')[0]).toMatchObject({
        labels: { driver: 'postgres' },
        value: 10,
      });
      expect(
        samplesOf(parsed, 'db_sql_connection_open').map((s) => [s.labels.status, s.value]),
      ).toEqual([
        ['idle', 2],
        ['inuse', 3],
      ]);
      expect(samplesOf(parsed, 'vexil_build_info')[0]?.labels.version).toBe('1.2.3');
    });

    it('exposes Node process metrics', async () => {
      const parsed = await scrape();
      for (const name of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'process_start_time_seconds',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(samplesOf(parsed, name)).toHaveLength(1);
      }
      expect(parsed.types.get('process_cpu_seconds_total')).toBe('counter');
      const start = samplesOf(parsed, 'process_start_time_seconds')[0]?.value ?? 0;
      expect(Math.abs(start - Date.now() / 1000)).toBeLessThan(3600);
    });

    it('records garbage-collection pauses by kind (prom-client defaults)', async () => {
      let major: number | undefined;
      for (let i = 0; i < 20 && major === undefined; i++) {
        collectGarbage();
        await settle();
        const parsed = await scrape();
        expect(parsed.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
        const counts = samplesOf(parsed, 'nodejs_gc_duration_seconds_count');
        major = counts.find((s) => s.labels.kind === 'major')?.value;
      }
      expect(major).toBeGreaterThanOrEqual(1);
    });

    it('counts an evaluation of a flag that does not exist under one fixed flag label', async () => {
      for (const key of ['no-such-flag', 'x'.repeat(200), 'another-typo']) {
        metrics.evaluated({
          namespaceKey: 'default',
          flagKey: key,
          durationMs: 1,
          error: new NotFoundError(`flag "default/${key}" not found`),
        });
      }
      const parsed = await scrape();
      const errors = samplesOf(parsed, 'flipt_evaluations_errors_total');
      expect(errors).toEqual([
        {
          name: 'flipt_evaluations_errors_total',
          labels: { namespace: 'default', flag: '(unknown)', ...SCOPE },
          value: 3,
        },
      ]);
      const text = await metrics.render();
      expect(text).not.toContain('no-such-flag');
      expect(text).not.toContain('another-typo');
    });

    it('serves the Prometheus 0.0.4 text content type', async () => {
      expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(metrics.enabled).toBe(true);
    });
  });

  describe('disabled', () => {
    beforeEach(() => {
      metrics = createMetrics({ enabled: false });
    });

    it('records nothing and renders nothing', async () => {
      metrics.evaluated({
        namespaceKey: 'default',
        flagKey: 'f',
        durationMs: 1,
        boolean: { enabled: true, reason: 'DEFAULT_EVALUATION_REASON' },
      });
      metrics.recordHttp('GET', '/x', 200, 0.1);
      metrics.recordGrpc('s', 'm', 0, 0.1);
      metrics.recordCache('memory', 'hit');
      metrics.recordDbError('sqlite');
      metrics.recordServerError();
      metrics.rebuilt('default', 1);
      metrics.servedStale('default', new Error('x'));
      let called = false;
      metrics.registerGauge('g', 'G.', [], () => {
        called = true;
        return [];
      });
      metrics.observeSnapshotAges(() => {
        called = true;
        return [];
      });
      expect(metrics.enabled).toBe(false);
      expect(await metrics.render()).toBe('');
      expect(called).toBe(false);
    });
  });
});

/** A full collection, as `node --expose-gc` would run it. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Node hands GC entries to observers a couple of event-loop turns later. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));
