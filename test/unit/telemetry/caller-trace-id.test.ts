import { callerTraceId } from '../../../src/adapters/telemetry/tracing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('callerTraceId', () => {
  it.each([
    [`00-${TRACE}-${SPAN}-01`, TRACE],
    [`00-${TRACE}-${SPAN}-00`, TRACE],
    [`01-${TRACE}-${SPAN}-00-future-fields`, TRACE],
  ])('reads the trace id of %s', (header, expected) => {
    expect(callerTraceId(header)).toBe(expected);
  });

  it.each([
    undefined,
    '',
    'garbage',
    `ff-${TRACE}-${SPAN}-01`,
    `00-${'0'.repeat(32)}-${SPAN}-01`,
    `00-${TRACE.toUpperCase()}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}-01x`,
    ['not', 'a', 'string'],
  ])('ignores %p', (header) => {
    expect(callerTraceId(header)).toBeUndefined();
  });
});
