import * as grpc from '@grpc/grpc-js';
import { NotFoundError, ValidationError, InvalidArgumentError } from '../../src/domain/errors';
import { unary } from '../unit/grpc/grpc-test-support';
import {
  T1_WIRE,
  T2_WIRE,
  namespace,
  variant,
  flag,
  segment,
  useGrpcManagement,
} from '../support/grpc-management';

describe('gRPC flipt.Flipt over a real grpc-js client: namespaces, flags, segments', () => {
  const g = useGrpcManagement();

  describe('namespaces', () => {
    it('creates a namespace and answers with wire timestamps', async () => {
      g.api.createNamespace.mockResolvedValue(namespace);
      const res = await unary(g.flipt, 'CreateNamespace', { key: 'team', name: 'Team' });
      expect(g.api.createNamespace).toHaveBeenCalledWith({
        key: 'team',
        name: 'Team',
        description: '',
      });
      expect(res).toEqual({
        key: 'team',
        name: 'Team',
        description: 'd',
        protected: false,
        createdAt: T1_WIRE,
        updatedAt: T2_WIRE,
      });
    });

    it('gets, lists, updates and deletes namespaces', async () => {
      g.api.getNamespace.mockResolvedValue(namespace);
      g.api.listNamespaces.mockResolvedValue({
        items: [namespace],
        nextPageToken: 'tok',
        totalCount: 3,
      });
      g.api.updateNamespace.mockResolvedValue(namespace);
      g.api.deleteNamespace.mockResolvedValue(undefined);

      await expect(unary(g.flipt, 'GetNamespace', { key: 'team' })).resolves.toMatchObject({
        key: 'team',
      });
      expect(g.api.getNamespace).toHaveBeenCalledWith({ key: 'team', reference: '' });

      const list = await unary(g.flipt, 'ListNamespaces', { limit: 1 });
      expect(g.api.listNamespaces).toHaveBeenCalledWith({
        limit: 1,
        offset: 0,
        pageToken: '',
        reference: '',
      });
      expect(list).toMatchObject({ nextPageToken: 'tok', totalCount: 3 });
      expect(list['namespaces']).toHaveLength(1);

      await unary(g.flipt, 'UpdateNamespace', { key: 'team', name: 'T2', description: 'x' });
      expect(g.api.updateNamespace).toHaveBeenCalledWith({
        key: 'team',
        name: 'T2',
        description: 'x',
      });

      await expect(
        unary(g.flipt, 'DeleteNamespace', { key: 'team', force: true }),
      ).resolves.toEqual({});
      expect(g.api.deleteNamespace).toHaveBeenCalledWith({ key: 'team', force: true });
    });

    it('answers NOT_FOUND with the domain message', async () => {
      g.api.getNamespace.mockRejectedValue(new NotFoundError('namespace "nope" not found'));
      await expect(unary(g.flipt, 'GetNamespace', { key: 'nope' })).rejects.toMatchObject({
        code: grpc.status.NOT_FOUND,
        details: 'namespace "nope" not found',
      });
    });
  });

  describe('flags and variants', () => {
    it('creates a flag with Struct metadata converted both ways', async () => {
      g.api.createFlag.mockResolvedValue(flag);
      const res = await unary(g.flipt, 'CreateFlag', {
        key: 'f',
        name: 'F',
        enabled: true,
        metadata: {
          fields: {
            team: { stringValue: 'core' },
            n: { numberValue: 2 },
            tags: { listValue: { values: [{ stringValue: 'a' }, { numberValue: 1 }] } },
            nested: { structValue: { fields: { x: { stringValue: 'y' } } } },
            none: { nullValue: 'NULL_VALUE' },
          },
        },
      });
      expect(g.api.createFlag).toHaveBeenCalledWith({
        namespaceKey: '',
        key: 'f',
        name: 'F',
        description: '',
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
        metadata: { team: 'core', n: 2, tags: ['a', 1], nested: { x: 'y' }, none: null },
      });
      expect(res).toMatchObject({
        key: 'f',
        type: 'VARIANT_FLAG_TYPE',
        namespaceKey: 'default',
        createdAt: T1_WIRE,
        variants: [{ id: 'v1', key: 'blue', attachment: '{"a":1}', createdAt: T1_WIRE }],
        metadata: {
          fields: {
            team: { stringValue: 'core' },
            n: { numberValue: 2 },
            ok: { boolValue: true },
            none: { nullValue: 'NULL_VALUE' },
            tags: { listValue: { values: [{ stringValue: 'a' }, { numberValue: 1 }] } },
            nested: { structValue: { fields: { x: { stringValue: 'y' } } } },
          },
        },
      });
      expect(res['defaultVariant']).toBeUndefined();
    });

    it('passes absent metadata as undefined and returns the default variant', async () => {
      g.api.updateFlag.mockResolvedValue({ ...flag, metadata: undefined, defaultVariant: variant });
      const res = await unary(g.flipt, 'UpdateFlag', {
        key: 'f',
        name: 'F',
        namespaceKey: 'default',
        defaultVariantId: 'v1',
      });
      expect(g.api.updateFlag).toHaveBeenCalledWith({
        namespaceKey: 'default',
        key: 'f',
        name: 'F',
        description: '',
        enabled: false,
        defaultVariantId: 'v1',
        metadata: undefined,
      });
      expect(res['defaultVariant']).toMatchObject({ id: 'v1', key: 'blue' });
      expect(res['metadata']).toBeUndefined();
    });

    it('gets, lists and deletes flags', async () => {
      g.api.getFlag.mockResolvedValue(flag);
      g.api.listFlags.mockResolvedValue({ items: [flag, flag], nextPageToken: '', totalCount: 2 });
      g.api.deleteFlag.mockResolvedValue(undefined);

      await expect(unary(g.flipt, 'GetFlag', { key: 'f' })).resolves.toMatchObject({ key: 'f' });
      expect(g.api.getFlag).toHaveBeenCalledWith({ namespaceKey: '', key: 'f', reference: '' });

      const list = await unary(g.flipt, 'ListFlags', {
        namespaceKey: 'x',
        pageToken: 'p',
        limit: 5,
      });
      expect(g.api.listFlags).toHaveBeenCalledWith({
        namespaceKey: 'x',
        limit: 5,
        offset: 0,
        pageToken: 'p',
        reference: '',
      });
      expect(list).toMatchObject({ nextPageToken: '', totalCount: 2 });
      expect(list['flags']).toHaveLength(2);

      await expect(unary(g.flipt, 'DeleteFlag', { key: 'f' })).resolves.toEqual({});
      expect(g.api.deleteFlag).toHaveBeenCalledWith({ namespaceKey: '', key: 'f' });
    });

    it('creates, updates and deletes variants', async () => {
      g.api.createVariant.mockResolvedValue(variant);
      g.api.updateVariant.mockResolvedValue(variant);
      g.api.deleteVariant.mockResolvedValue(undefined);
      await unary(g.flipt, 'CreateVariant', { flagKey: 'f', key: 'blue', attachment: '{"a": 1}' });
      expect(g.api.createVariant).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        key: 'blue',
        name: '',
        description: '',
        attachment: '{"a": 1}',
      });
      await unary(g.flipt, 'UpdateVariant', { id: 'v1', flagKey: 'f', key: 'blue', name: 'B' });
      expect(g.api.updateVariant).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'v1', name: 'B' }),
      );
      await unary(g.flipt, 'DeleteVariant', { id: 'v1', flagKey: 'f' });
      expect(g.api.deleteVariant).toHaveBeenCalledWith({
        namespaceKey: '',
        flagKey: 'f',
        id: 'v1',
      });
    });

    it('answers INVALID_ARGUMENT with Flipt validation messages', async () => {
      g.api.createFlag.mockRejectedValue(new ValidationError('key', 'must not be empty'));
      await expect(unary(g.flipt, 'CreateFlag', { name: 'x' })).rejects.toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
        details: 'invalid field key: must not be empty',
      });
      g.api.createFlag.mockRejectedValue(
        new InvalidArgumentError('flag "default/f" is not unique'),
      );
      await expect(unary(g.flipt, 'CreateFlag', { key: 'f', name: 'x' })).rejects.toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
        details: 'flag "default/f" is not unique',
      });
    });

    it('rejects an enum number the server has no name for', async () => {
      await expect(
        unary(g.flipt, 'CreateFlag', { key: 'f', name: 'F', type: 7 }),
      ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      expect(g.api.createFlag).not.toHaveBeenCalled();
    });
  });

  describe('segments and constraints', () => {
    it('creates a segment and a constraint with enum names', async () => {
      g.api.createSegment.mockResolvedValue(segment);
      g.api.createConstraint.mockResolvedValue(segment.constraints[0]);
      const s = await unary(g.flipt, 'CreateSegment', {
        key: 'beta',
        name: 'Beta',
        matchType: 'ANY_MATCH_TYPE',
      });
      expect(g.api.createSegment).toHaveBeenCalledWith({
        namespaceKey: '',
        key: 'beta',
        name: 'Beta',
        description: '',
        matchType: 'ANY_MATCH_TYPE',
      });
      expect(s).toMatchObject({ matchType: 'ANY_MATCH_TYPE', constraints: [{ id: 'c1' }] });

      const c = await unary(g.flipt, 'CreateConstraint', {
        segmentKey: 'beta',
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'EQ',
        value: 'pro',
      });
      expect(g.api.createConstraint).toHaveBeenCalledWith({
        namespaceKey: '',
        segmentKey: 'beta',
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'EQ',
        value: 'pro',
        description: '',
      });
      expect(c).toMatchObject({ id: 'c1', type: 'STRING_COMPARISON_TYPE', createdAt: T1_WIRE });
    });

    it('lists, updates and deletes segments and constraints', async () => {
      g.api.listSegments.mockResolvedValue({ items: [segment], nextPageToken: '', totalCount: 1 });
      g.api.updateSegment.mockResolvedValue(segment);
      g.api.deleteSegment.mockResolvedValue(undefined);
      g.api.updateConstraint.mockResolvedValue(segment.constraints[0]);
      g.api.deleteConstraint.mockResolvedValue(undefined);
      await expect(unary(g.flipt, 'ListSegments', {})).resolves.toMatchObject({ totalCount: 1 });
      await unary(g.flipt, 'UpdateSegment', { key: 'beta', name: 'B' });
      expect(g.api.updateSegment).toHaveBeenCalledWith(
        expect.objectContaining({ matchType: 'ALL_MATCH_TYPE' }),
      );
      await unary(g.flipt, 'UpdateConstraint', {
        id: 'c1',
        segmentKey: 'beta',
        type: 'NUMBER_COMPARISON_TYPE',
        property: 'n',
        operator: 'gt',
        value: '1',
      });
      expect(g.api.updateConstraint).toHaveBeenCalledWith(
        expect.objectContaining({ id: 'c1', type: 'NUMBER_COMPARISON_TYPE' }),
      );
      await unary(g.flipt, 'DeleteConstraint', { id: 'c1', segmentKey: 'beta' });
      await unary(g.flipt, 'DeleteSegment', { key: 'beta' });
      expect(g.api.deleteSegment).toHaveBeenCalledWith({ namespaceKey: '', key: 'beta' });
    });
  });
});
