import { fromGrpcMessage } from '../../../src/adapters/grpc/request-message';
import { requestSchema } from '../../../src/adapters/rpc/message-schema';

describe('a flipt.Flipt request as proto-loader hands it over', () => {
  it('becomes the request message the ManagementApi takes', () => {
    const req = fromGrpcMessage(
      {
        key: 'f',
        name: 'F',
        enabled: true,
        type: 'BOOLEAN_FLAG_TYPE',
        metadata: { fields: { team: { stringValue: 'core' }, n: { numberValue: 2 } } },
      },
      requestSchema('flipt.CreateFlagRequest'),
    );
    expect(req).toEqual({
      key: 'f',
      name: 'F',
      description: '',
      enabled: true,
      namespaceKey: '',
      type: 'BOOLEAN_FLAG_TYPE',
      metadata: { team: 'core', n: 2 },
    });
  });

  it('leaves an absent oneof member or optional field undefined and reads a present one', () => {
    const schema = requestSchema('flipt.CreateRolloutRequest');
    const absent = fromGrpcMessage({ rank: 1, segment: null }, schema);
    expect(absent['segment']).toBeUndefined();
    expect(absent['threshold']).toBeUndefined();
    const present = fromGrpcMessage(
      { threshold: { percentage: 12.5, value: true }, rule: 'threshold' },
      schema,
    );
    expect(present['threshold']).toEqual({ percentage: 12.5, value: true });
    expect(present).not.toHaveProperty('rule');
  });

  it('refuses an enum number this server has no name for, naming the enum', () => {
    expect(() =>
      fromGrpcMessage(
        { segment: { segmentOperator: 7 } },
        requestSchema('flipt.CreateRolloutRequest'),
      ),
    ).toThrow('invalid SegmentOperator value: 7');
  });
});
