import { startVexil, type VexilProcess } from '../support/vexil-process';

const post = (base: string, path: string, body: object) =>
  fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) });

describe('GET /metrics on the running server', () => {
  let vexil: VexilProcess;
  beforeAll(async () => {
    vexil = await startVexil();
  });
  afterAll(async () => {
    await vexil?.stop();
  });

  it('exposes Flipt’s evaluation metrics, HTTP metrics by route, and process metrics', async () => {
    await post(vexil.baseUrl, '/api/v1/namespaces/default/flags', {
      key: 'metered',
      name: 'Metered',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    for (const entityId of ['secret-entity-1', 'secret-entity-2', 'secret-entity-3']) {
      expect(
        (await post(vexil.baseUrl, '/evaluate/v1/boolean', { flagKey: 'metered', entityId }))
          .status,
      ).toBe(200);
    }
    await post(vexil.baseUrl, '/evaluate/v1/boolean', { flagKey: 'absent', entityId: 'x' });
    await fetch(`${vexil.baseUrl}/api/v1/namespaces/default/flags/metered?some=query`);

    const res = await fetch(`${vexil.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();

    const sample = (re: RegExp): number => {
      const m = re.exec(text);
      if (!m) throw new Error(`no sample matching ${re}`);
      return Number(m[1]);
    };
    expect(
      sample(
        /^flipt_evaluations_requests_total\{[^}]*namespace="default",flag="metered"[^}]*\} (\d+)/m,
      ),
    ).toBe(3);
    expect(
      sample(
        /^flipt_evaluations_results_total\{[^}]*flag="metered",value="true",reason="DEFAULT_EVALUATION_REASON",type="boolean"[^}]*\} (\d+)/m,
      ),
    ).toBe(3);
    expect(text).toMatch(
      /^flipt_evaluations_latency_milliseconds_bucket\{(?=[^}]*le="\+Inf")(?=[^}]*flag="metered")[^}]*\} 3$/m,
    );
    // A flag that does not exist is counted under one fixed label, never its raw key.
    expect(sample(/^flipt_evaluations_errors_total\{[^}]*flag="\(unknown\)"[^}]*\} (\d+)/m)).toBe(
      1,
    );
    expect(text).not.toContain('absent');
    await fetch(`${vexil.baseUrl}/no/such/path/raw-path-text`);
    expect(await (await fetch(`${vexil.baseUrl}/metrics`)).text()).not.toContain('raw-path-text');
    expect(
      sample(
        /^vexil_http_requests_total\{[^}]*route="\/evaluate\/v1\/boolean"[^}]*status="200"[^}]*\} (\d+)/m,
      ),
    ).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/route="\/api\/v1\/namespaces\/:namespaceKey\/flags\/:key"/);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^vexil_snapshot_age_seconds\{namespace="default"\} /m);

    // Bounded labels: no entity ids, no raw paths or query strings.
    expect(text).not.toContain('secret-entity');
    expect(text).not.toContain('some=query');
    expect(text).not.toContain('/flags/metered');
  });
});

describe('metrics switched off', () => {
  it('serves no /metrics', async () => {
    const vexil = await startVexil({ VEXIL_METRICS_ENABLED: 'false' });
    try {
      expect((await fetch(`${vexil.baseUrl}/metrics`)).status).toBe(404);
    } finally {
      await vexil.stop();
    }
  });
});
