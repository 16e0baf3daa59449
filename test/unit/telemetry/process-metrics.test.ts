import { constants } from 'node:perf_hooks';
import { gcKindName } from '../../../src/adapters/telemetry/process-metrics';

describe('GC kind labels', () => {
  it('name the kinds node reports: scavenges are minor, full collections major', () => {
    expect(gcKindName(constants.NODE_PERFORMANCE_GC_MINOR)).toBe('minor');
    expect(gcKindName(constants.NODE_PERFORMANCE_GC_MAJOR)).toBe('major');
    expect(gcKindName(constants.NODE_PERFORMANCE_GC_INCREMENTAL)).toBe('incremental');
    expect(gcKindName(constants.NODE_PERFORMANCE_GC_WEAKCB)).toBe('weakcb');
    expect(gcKindName(undefined)).toBe('unknown');
    expect(gcKindName(1024)).toBe('unknown');
  });
});
