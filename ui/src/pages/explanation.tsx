import type { ExplainResponse, StepTrace } from '../api/types';
import { describeConstraint } from '../lib/constraints';
import { joinSegments } from '../lib/segments';

/** The evaluation result as the API returns it, then the path the evaluator took. */
export function Explanation({ response }: { response: ExplainResponse }) {
  const { explanation: ex } = response;
  const result = response.boolean ?? response.variant;
  return (
    <div className="stack">
      <div className="result-head">
        {response.boolean ? (
          <span className={`result-value ${response.boolean.enabled ? 'pass' : 'fail'}`}>
            {response.boolean.enabled ? 'true' : 'false'}
          </span>
        ) : response.variant ? (
          <span className="result-value mono">
            {response.variant.match
              ? response.variant.variantKey || '(no variant key)'
              : 'no match'}
          </span>
        ) : null}
        {result ? <span className="badge accent">{result.reason}</span> : null}
      </div>
      <p>{ex.summary}</p>
      {ex.steps.length > 0 ? (
        <>
          <h3>{ex.flagType === 'BOOLEAN_FLAG_TYPE' ? 'Rollouts' : 'Rules'}, in order</h3>
          <ol className="trace">
            {ex.steps.map((step) => (
              <Step key={step.id} step={step} />
            ))}
          </ol>
        </>
      ) : null}
      <details open>
        <summary>Response from the evaluation API</summary>
        <pre className="code">{JSON.stringify(result, null, 2)}</pre>
      </details>
    </div>
  );
}

const OUTCOME_TEXT: Record<StepTrace['outcome'], string> = {
  matched: 'matched',
  'not-matched': 'did not match',
  'not-reached': 'not reached',
};

function Step({ step }: { step: StepTrace }) {
  const keys = step.segments.map((s) => s.key);
  return (
    <li className={`trace-step ${step.outcome}`}>
      <header>
        <span className="rank">{step.rank}</span>
        {step.threshold ? (
          <span>
            Threshold {step.threshold.percentage}% → {String(step.threshold.value)}
          </span>
        ) : (
          <span className="mono">
            {joinSegments(keys, step.segmentOperator ?? 'OR_SEGMENT_OPERATOR')}
          </span>
        )}
        {step.segmentValue !== undefined ? <span>→ {String(step.segmentValue)}</span> : null}
        <span className={`badge ${step.outcome === 'matched' ? 'on' : ''}`}>
          {OUTCOME_TEXT[step.outcome]}
        </span>
      </header>
      {step.threshold && step.outcome !== 'not-reached' ? (
        <Bucket
          bucket={step.threshold.bucket}
          scale={100}
          ranges={[
            {
              from: 0,
              to: step.threshold.percentage,
              label: `below ${step.threshold.percentage}`,
              on: true,
            },
          ]}
          text={`The entity's bucket is ${step.threshold.bucket} of 100; it is in the rollout when below ${step.threshold.percentage}.`}
        />
      ) : null}
      {step.segments.map((segment) => (
        <div className="trace-seg" key={segment.key}>
          <div>
            <span className={segment.matched ? 'pass' : 'fail'}>{segment.matched ? '✓' : '✗'}</span>{' '}
            segment <span className="mono">{segment.key}</span>{' '}
            <span className="muted">
              (
              {segment.constraints.length === 0
                ? 'no constraints: matches everyone'
                : segment.matchType === 'ANY_MATCH_TYPE'
                  ? 'any constraint'
                  : 'all constraints'}
              )
            </span>
          </div>
          {segment.constraints.length > 0 ? (
            <ul className="trace-cons">
              {segment.constraints.map((c) => (
                <li key={c.id}>
                  <span
                    className={c.passed ? 'pass' : 'fail'}
                    aria-label={c.passed ? 'passed' : 'failed'}
                  >
                    {c.passed ? '✓' : '✗'}
                  </span>
                  <code>{describeConstraint(c)}</code>
                  <span className="muted">
                    {c.actual === undefined
                      ? `(${c.property} not in context)`
                      : `(${c.property} is "${c.actual}")`}
                  </span>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ))}
      {step.distributions && step.outcome === 'matched' && step.bucket !== undefined ? (
        <Bucket
          bucket={step.bucket}
          scale={1000}
          ranges={step.distributions.map((d) => ({
            from: d.from,
            to: d.to,
            label: d.variantKey,
            on: d.selected,
          }))}
          text={`The entity's bucket is ${step.bucket} of 1000: ${
            step.distributions.find((d) => d.selected)
              ? `inside ${step.distributions.find((d) => d.selected)?.variantKey}'s range`
              : 'outside every distribution, so no variant'
          }.`}
        />
      ) : null}
    </li>
  );
}

const COLORS = ['#6366f1', '#10b981', '#f59e0b', '#ef4444', '#06b6d4', '#a855f7'];

function Bucket({
  bucket,
  scale,
  ranges,
  text,
}: {
  bucket: number;
  scale: number;
  ranges: { from: number; to: number; label: string; on: boolean }[];
  text: string;
}) {
  return (
    <div style={{ marginTop: 8 }}>
      <div className="bucket-scale" role="img" aria-label={text}>
        {ranges.map((r, i) => (
          <span
            key={`${r.label}-${i}`}
            className="seg"
            title={`${r.label}: ${r.from}–${r.to}`}
            style={{
              left: `${(r.from / scale) * 100}%`,
              width: `${((r.to - r.from) / scale) * 100}%`,
              background: COLORS[i % COLORS.length],
              opacity: r.on ? 0.9 : 0.45,
            }}
          />
        ))}
        <span className="marker" style={{ left: `calc(${(bucket / scale) * 100}% - 1px)` }} />
      </div>
      {ranges.length > 1 ? (
        <div className="dist-legend" style={{ marginTop: 4 }}>
          {ranges.map((r, i) => (
            <span key={`${r.label}-${i}`}>
              <i style={{ background: COLORS[i % COLORS.length], opacity: r.on ? 0.9 : 0.45 }} />
              {r.label} {r.from}–{r.to}
            </span>
          ))}
        </div>
      ) : null}
      <p className="muted" style={{ fontSize: '0.87rem', marginBottom: 0 }}>
        {text}
      </p>
    </div>
  );
}
