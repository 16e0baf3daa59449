import { http, sharedState, startInstance, type Instance } from './auth-harness';

/*
 * `?pretty` on the management API, as Flipt's gateway answers it: indented JSON from a
 * marshaller without EmitDefaultValues, so zero values are left out, errors included.
 */

describe('?pretty on management responses', () => {
  let vexil: Instance;
  let port: number;
  beforeAll(async () => {
    vexil = await startInstance(sharedState(), { required: false });
    port = vexil.httpPort;
    await vexil.management.createFlag({
      namespaceKey: 'default',
      key: 'on',
      name: 'On',
      description: '',
      enabled: true,
      type: 'BOOLEAN_FLAG_TYPE',
    });
  });
  afterAll(() => vexil.stop());

  it('indents the answer and leaves zero values out', async () => {
    const res = await http(port, 'GET', '/api/v1/namespaces/default/flags/on?pretty');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^\{\n {2}"key": "on",\n/);
    const flag = res.json() as Record<string, unknown>;
    expect(flag).toMatchObject({ key: 'on', name: 'On', enabled: true, namespaceKey: 'default' });
    // description "" and variants [] are zero values; BOOLEAN_FLAG_TYPE (1) is not.
    expect(flag).not.toHaveProperty('description');
    expect(flag).not.toHaveProperty('variants');
    expect(flag['type']).toBe('BOOLEAN_FLAG_TYPE');
    const plain = await http(port, 'GET', '/api/v1/namespaces/default/flags/on');
    expect(plain.text.includes('\n')).toBe(false);
    expect(plain.json()).toMatchObject({ description: '', variants: [] });
  });

  it('takes any value, and works on writes and lists', async () => {
    const created = await http(port, 'POST', '/api/v1/namespaces/default/segments?pretty=false', {
      body: { key: 'seg', name: 'Seg', matchType: 'ALL_MATCH_TYPE' },
    });
    expect(created.status).toBe(200);
    expect(created.text).toContain('\n  "key": "seg"');
    // ALL_MATCH_TYPE is the enum's zero value.
    expect(created.json()).not.toHaveProperty('matchType');
    const list = await http(port, 'GET', '/api/v1/namespaces/default/segments?pretty=');
    expect(list.json()).toMatchObject({ segments: [expect.objectContaining({ key: 'seg' })] });
    expect(list.json()).not.toHaveProperty('nextPageToken');
  });

  it('writes errors the same way, without the empty details', async () => {
    const res = await http(port, 'GET', '/api/v1/namespaces/default/flags/nope?pretty');
    expect(res.status).toBe(404);
    expect(res.text).toBe('{\n  "code": 5,\n  "message": "flag \\"default/nope\\" not found"\n}');
  });
});
