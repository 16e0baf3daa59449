import { FLIPT_JSON_SHAPES, FLIPT_SHAPES } from '../../../src/adapters/rpc/flipt-shapes';
import {
  MANAGEMENT_RPCS,
  MANAGEMENT_SERVICE,
  managementRpcs,
} from '../../../src/adapters/rpc/management-rpcs';
import { MessageEncoders } from '../../../src/adapters/rpc/message-encoder';
import { requestSchema, schemaOf } from '../../../src/adapters/rpc/message-schema';
import { serviceMethods } from '../../../src/adapters/rpc/proto-root';
import {
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  ROLLOUT_TYPES,
  SEGMENT_OPERATORS,
  type Flag,
} from '../../../src/domain/model';
import { fakeManagementApi } from '../grpc/grpc-test-support';
import { protoSource, rootOf } from './proto-fixture';

describe('the management RPC table', () => {
  it('describes every flipt.Flipt method but the legacy evaluations, once each', () => {
    const described = MANAGEMENT_RPCS.map((r) => r.rpc);
    expect(new Set(described).size).toBe(described.length);
    const methods = [...serviceMethods(MANAGEMENT_SERVICE).keys()].filter(
      (m) => m !== 'Evaluate' && m !== 'BatchEvaluate',
    );
    expect([...described].sort()).toEqual(methods.sort());
  });

  it('calls the ManagementApi method of the same name with the decoded message', async () => {
    const api = fakeManagementApi();
    for (const rpc of managementRpcs()) {
      const method = rpc.rpc.charAt(0).toLowerCase() + rpc.rpc.slice(1);
      const mock = api[method as keyof typeof api];
      mock.mockResolvedValueOnce(undefined);
      await rpc.call(api, { key: 'k' });
      expect(mock).toHaveBeenLastCalledWith(expect.objectContaining({ key: 'k' }));
    }
    expect(api.listRollouts).toHaveBeenLastCalledWith({ key: 'k', offset: 0 });
  });

  it('names only request fields as path parameters', () => {
    for (const rpc of managementRpcs()) {
      for (const path of rpc.paths) {
        for (const [, param] of path.matchAll(/:(\w+)/g)) {
          expect([rpc.rpc, param, param !== undefined && param in rpc.request]).toEqual([
            rpc.rpc,
            param,
            true,
          ]);
        }
      }
    }
  });
});

describe('request messages read from flipt.proto', () => {
  it('list the fields in declaration order with their kinds', () => {
    expect(requestSchema('flipt.CreateFlagRequest')).toEqual({
      key: 'string',
      name: 'string',
      description: 'string',
      enabled: 'bool',
      namespaceKey: 'string',
      type: { enum: 'flipt.FlagType', values: FLAG_TYPES },
      metadata: 'struct',
    });
    expect(requestSchema('flipt.UpdateRolloutRequest')).toEqual({
      id: 'string',
      namespaceKey: 'string',
      flagKey: 'string',
      description: 'string',
      segment: {
        message: {
          segmentKey: 'string',
          value: 'bool',
          segmentKeys: 'strings',
          segmentOperator: { enum: 'flipt.SegmentOperator', values: SEGMENT_OPERATORS },
        },
      },
      threshold: { message: { percentage: 'float', value: 'bool' } },
    });
  });

  it("number their enums as the domain's lists do", () => {
    const enumOf = (type: string, field: string) => {
      const spec = requestSchema(type)[field];
      return typeof spec === 'object' && 'enum' in spec ? spec.values : undefined;
    };
    expect(enumOf('flipt.CreateSegmentRequest', 'matchType')).toEqual(MATCH_TYPES);
    expect(enumOf('flipt.CreateConstraintRequest', 'type')).toEqual(COMPARISON_TYPES);
    expect(enumOf('flipt.CreateRuleRequest', 'segmentOperator')).toEqual(SEGMENT_OPERATORS);
    const rollout = new MessageEncoders('json').encode('flipt.Rollout', {});
    expect(rollout).toMatchObject({ type: ROLLOUT_TYPES[0] });
  });
});

describe('a field added to flipt.proto', () => {
  // The proto with `owner` added to Flag and to CreateFlagRequest, and nothing else changed.
  const source = protoSource('flipt.proto')
    .replace(/(message Flag \{[^}]*)\}/, '$1  string owner = 12;\n}')
    .replace(/(message CreateFlagRequest \{[^}]*)\}/, '$1  string owner = 8;\n}');
  const root = rootOf(source);
  const lookup = (name: string) => root.lookupType(name);

  it('is decoded from requests on both transports', () => {
    const schema = schemaOf(lookup('flipt.CreateFlagRequest'));
    expect(Object.keys(schema)).toEqual([
      'key',
      'name',
      'description',
      'enabled',
      'namespaceKey',
      'type',
      'metadata',
      'owner',
    ]);
    expect(schema['owner']).toBe('string');
  });

  it('is written in responses on both transports', () => {
    const flag: Flag & { owner: string } = {
      namespaceKey: 'default',
      key: 'f',
      name: 'F',
      description: '',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
      createdAt: '2024-05-01T10:00:00.000000Z',
      updatedAt: '2024-05-01T10:00:00.000000Z',
      variants: [],
      owner: 'team-a',
    };
    const json = new MessageEncoders('json', FLIPT_JSON_SHAPES, lookup);
    expect(Object.keys(json.encode('flipt.Flag', flag) as object).slice(-1)).toEqual(['owner']);
    const page = { items: [flag], nextPageToken: '', totalCount: 1 };
    expect(json.encode('flipt.FlagList', page)).toMatchObject({
      flags: [{ owner: 'team-a', metadata: {} }],
    });
    const grpc = new MessageEncoders('grpc', FLIPT_SHAPES, lookup);
    expect(grpc.encode('flipt.Flag', flag)).toMatchObject({ owner: 'team-a' });
  });
});
