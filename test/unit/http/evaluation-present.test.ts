import fc from 'fast-check';
import { formatTimestamp } from '../../../src/domain/evaluation';
import type { BooleanEvaluationResponse } from '../../../src/domain/model';
import { formatMicros } from '../../../src/adapters/system';
import { jsonText } from '../../../src/adapters/http/http-error';
import {
  presentBoolean,
  presentBooleanJson,
  jsonString,
  presentTimestamp,
} from '../../../src/adapters/http/evaluation/present';

// The fast presenters must write exactly what the plain ones do.

describe('presentTimestamp', () => {
  it('equals formatTimestamp for clock output across seconds, days and fractions', () => {
    const start = Date.UTC(2024, 1, 28, 23, 59, 58) * 1000;
    for (let i = 0; i < 200_000; i++) {
      const ts = formatMicros(start + i * (i % 3 === 0 ? 1000 : 17));
      expect(presentTimestamp(ts)).toBe(formatTimestamp(ts));
    }
  });

  it('equals formatTimestamp for other shapes and invalid dates', () => {
    for (const ts of [
      '2024-05-01T10:00:00.000000Z',
      '2024-05-01T10:00:00.120000Z',
      '2024-05-01T10:00:00.123000Z',
      '2024-05-01T10:00:00Z',
      '2024-05-01T10:00:00.123456789Z',
      '2024-13-45T10:00:00.123456Z',
      '2024-13-45T10:00:00.000000Z',
      'not a time',
      '',
    ]) {
      expect(presentTimestamp(ts)).toBe(formatTimestamp(ts));
    }
  });
});

describe('jsonString', () => {
  it('writes what JSON.stringify writes, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (s) => {
        expect(jsonString(s)).toBe(JSON.stringify(s));
      }),
    );
    for (const s of ['', 'a"b', 'a\\b', '\u0000', '\u007f', 'é', '\ud800', 'x\ny']) {
      expect(jsonString(s)).toBe(JSON.stringify(s));
    }
  });
});

describe('presentBooleanJson', () => {
  const response = (over: Partial<BooleanEvaluationResponse>): BooleanEvaluationResponse => ({
    enabled: true,
    reason: 'MATCH_EVALUATION_REASON',
    flagKey: 'flag',
    segmentKeys: [],
    requestId: 'id',
    requestDurationMillis: 0.25,
    timestamp: '2024-05-01T10:00:00.123456Z',
    ...over,
  });

  it('writes the text JSON.stringify writes for the plain presenter', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.constantFrom('MATCH_EVALUATION_REASON', 'DEFAULT_EVALUATION_REASON'),
        fc.string(),
        fc.array(fc.string(), { maxLength: 3 }),
        fc.string(),
        fc.oneof(fc.double(), fc.constant(-0)),
        (enabled, reason, flagKey, segmentKeys, requestId, requestDurationMillis) => {
          const r = response({
            enabled,
            reason,
            flagKey,
            segmentKeys,
            requestId,
            requestDurationMillis,
          });
          expect(jsonText(presentBooleanJson(r))).toBe(JSON.stringify(presentBoolean(r)));
        },
      ),
    );
  });

  it('does not reuse a previous answer’s keys when they change', () => {
    const keys = ['a'];
    const first = response({ segmentKeys: keys, flagKey: 'x' });
    expect(jsonText(presentBooleanJson(first))).toBe(JSON.stringify(presentBoolean(first)));
    const second = response({ segmentKeys: ['b', 'c'], flagKey: 'y', timestamp: 'odd "ts"' });
    expect(jsonText(presentBooleanJson(second))).toBe(JSON.stringify(presentBoolean(second)));
  });
});
