import { apiErrorFrom, fieldOfError } from '../src/lib/api-error';
import { contextToRows, jsonToContext, rowsToContext } from '../src/lib/context';
import { fromLocalInput, relativeTime, toLocalInput } from '../src/lib/datetime';

describe('evaluation context', () => {
  it('turns rows into a context, skipping blank rows', () => {
    expect(
      rowsToContext([
        { id: 1, key: 'plan', value: 'pro' },
        { id: 2, key: '', value: '' },
        { id: 3, key: ' country ', value: 'fr' },
      ]),
    ).toEqual({ ok: true, context: { plan: 'pro', country: 'fr' } });
  });

  it('points at the row of a repeated or missing key', () => {
    expect(
      rowsToContext([
        { id: 1, key: 'a', value: '1' },
        { id: 2, key: 'a', value: '2' },
      ]),
    ).toMatchObject({ ok: false, row: 1 });
    expect(rowsToContext([{ id: 1, key: '', value: 'x' }])).toMatchObject({ ok: false, row: 0 });
  });

  it('reads JSON, turning numbers and booleans into strings as the API wants', () => {
    expect(jsonToContext('{"age": 30, "beta": true, "plan": "pro", "x": null}')).toEqual({
      ok: true,
      context: { age: '30', beta: 'true', plan: 'pro', x: '' },
    });
    expect(jsonToContext('')).toEqual({ ok: true, context: {} });
  });

  it('refuses JSON that is not an object of scalars', () => {
    expect(jsonToContext('[1]')).toMatchObject({ ok: false });
    expect(jsonToContext('{"a": {"b": 1}}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('"a"'),
    });
    expect(jsonToContext('{oops')).toMatchObject({
      ok: false,
      error: expect.stringContaining('Not valid JSON'),
    });
  });

  it('round-trips rows and objects', () => {
    const rows = contextToRows({ a: '1', b: '2' });
    expect(rowsToContext(rows)).toEqual({ ok: true, context: { a: '1', b: '2' } });
    expect(contextToRows({})).toHaveLength(1);
  });
});

describe('API errors', () => {
  it("reads Flipt's error body", () => {
    const error = apiErrorFrom(
      400,
      '{"code":3,"message":"flag \\"default/a\\" is not unique","details":[]}',
    );
    expect(error).toMatchObject({
      status: 400,
      code: 3,
      message: 'flag "default/a" is not unique',
    });
  });

  it('explains a failure without a JSON body', () => {
    expect(apiErrorFrom(502, '<html>bad gateway</html>').message).toMatch(/HTTP 502/);
    expect(apiErrorFrom(0, '').message).toMatch(/could not be reached/);
    expect(apiErrorFrom(401, '').unauthenticated).toBe(true);
  });

  it('places a message beside the field it names', () => {
    const fields = { key: 'key', name: 'name', '/is not unique/': 'key' };
    expect(fieldOfError('invalid field key: contains invalid characters', fields)).toBe('key');
    expect(fieldOfError('invalid field name: must not be empty', fields)).toBe('name');
    expect(fieldOfError('flag "default/a" is not unique', fields)).toBe('key');
    expect(fieldOfError('something else', fields)).toBeUndefined();
    expect(
      fieldOfError('invalid field segment_key: must not be empty', { segmentKey: 'segments' }),
    ).toBe('segments');
  });
});

describe('date-time inputs', () => {
  it('converts between the UTC value and the local picker value', () => {
    const utc = '2024-05-01T10:30:00Z';
    expect(fromLocalInput(toLocalInput(utc))).toBe(utc);
    expect(fromLocalInput('')).toBe('');
    expect(toLocalInput('garbage')).toBe('');
  });

  it('says how long ago in words', () => {
    const now = Date.parse('2024-05-01T12:00:00Z');
    expect(relativeTime('2024-05-01T11:57:00Z', now)).toBe('3 minutes ago');
    expect(relativeTime('2024-05-03T12:00:00Z', now)).toBe('in 2 days');
    expect(relativeTime('2024-05-01T12:00:00Z', now)).toBe('just now');
  });
});
