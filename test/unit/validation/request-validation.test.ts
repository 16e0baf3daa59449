import { ValidationError } from '../../../src/domain/errors';
import * as v from '../../../src/domain/validation';
import { outcome, variant } from './fixtures';

const list = { limit: 0, offset: 0, pageToken: '', reference: '' };
const flag = {
  namespaceKey: '',
  key: 'f',
  name: 'F',
  description: '',
  enabled: false,
  type: 'VARIANT_FLAG_TYPE' as const,
};
const update = { ...flag, defaultVariantId: '' };
const segment = {
  namespaceKey: '',
  key: 's',
  name: 'S',
  description: '',
  matchType: 'ALL_MATCH_TYPE' as const,
};
const segs = {
  segmentKey: '',
  segmentKeys: ['a'],
  segmentOperator: 'OR_SEGMENT_OPERATOR' as const,
};
const rule = { namespaceKey: '', flagKey: 'f', rank: 1, ...segs };
const dist = { namespaceKey: '', flagKey: 'f', ruleId: 'r', variantId: 'v', rollout: 50 };
const rollout = { namespaceKey: '', flagKey: 'f', rank: 1, description: '' };

describe('field rules and messages', () => {
  const cases: Array<[string, () => unknown, string]> = [
    [
      'namespace create: key',
      () => v.validateCreateNamespace({ key: '', name: 'n', description: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'namespace create: key chars',
      () => v.validateCreateNamespace({ key: 'a b', name: 'n', description: '' }),
      'invalid field key: contains invalid characters',
    ],
    [
      'namespace create: name',
      () => v.validateCreateNamespace({ key: 'k', name: '', description: '' }),
      'invalid field name: must not be empty',
    ],
    [
      'namespace create: ok',
      () => v.validateCreateNamespace({ key: 'k', name: 'n', description: '' }),
      'ok',
    ],
    [
      'namespace update: key',
      () => v.validateUpdateNamespace({ key: '', name: 'n', description: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'namespace update: no regex',
      () => v.validateUpdateNamespace({ key: 'a b', name: 'n', description: '' }),
      'ok',
    ],
    [
      'namespace update: name',
      () => v.validateUpdateNamespace({ key: 'k', name: '', description: '' }),
      'invalid field name: must not be empty',
    ],
    [
      'namespace delete: key',
      () => v.validateDeleteNamespace({ key: '', force: true }),
      'invalid field key: must not be empty',
    ],

    [
      'flag create: key first',
      () => v.validateCreateFlag({ ...flag, key: '', name: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'flag create: regex before name',
      () => v.validateCreateFlag({ ...flag, key: 'a/b', name: '' }),
      'invalid field key: contains invalid characters',
    ],
    [
      'flag create: name',
      () => v.validateCreateFlag({ ...flag, name: '' }),
      'invalid field name: must not be empty',
    ],
    [
      'flag update: key',
      () => v.validateUpdateFlag({ ...update, key: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'flag update: name',
      () => v.validateUpdateFlag({ ...update, name: '' }),
      'invalid field name: must not be empty',
    ],
    ['flag update: no regex', () => v.validateUpdateFlag({ ...update, key: 'legacy key!' }), 'ok'],
    [
      'flag get: key',
      () => v.validateGetFlag({ namespaceKey: '', key: '', reference: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'flag delete: key',
      () => v.validateDeleteFlag({ namespaceKey: '', key: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'flag list: offset without limit',
      () => v.validateListFlags({ ...list, namespaceKey: '', offset: 1 }),
      'limit must be set when offset or pageToken is set',
    ],
    [
      'flag list: token without limit',
      () => v.validateListFlags({ ...list, namespaceKey: '', pageToken: 't' }),
      'limit must be set when offset or pageToken is set',
    ],
    [
      'flag list: limit and token',
      () => v.validateListFlags({ ...list, namespaceKey: '', limit: 1, pageToken: 't' }),
      'ok',
    ],
    [
      'flag list: negative offset',
      () => v.validateListFlags({ ...list, namespaceKey: '', offset: -1 }),
      'ok',
    ],

    [
      'variant create: flagKey',
      () => v.validateCreateVariant({ ...variant, flagKey: '', key: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'variant create: key',
      () => v.validateCreateVariant({ ...variant, key: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'variant create: no key regex',
      () => v.validateCreateVariant({ ...variant, key: 'any key/€' }),
      'ok',
    ],
    [
      'variant create: attachment',
      () => v.validateCreateVariant({ ...variant, attachment: '{nope' }),
      'invalid field attachment: must be a json string',
    ],
    [
      'variant update: id',
      () => v.validateUpdateVariant({ ...variant, id: '', flagKey: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'variant update: flagKey',
      () => v.validateUpdateVariant({ ...variant, id: 'i', flagKey: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'variant update: key',
      () => v.validateUpdateVariant({ ...variant, id: 'i', key: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'variant update: attachment',
      () => v.validateUpdateVariant({ ...variant, id: 'i', attachment: '[1,]' }),
      'invalid field attachment: must be a json string',
    ],
    [
      'variant delete: id',
      () => v.validateDeleteVariant({ namespaceKey: '', flagKey: '', id: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'variant delete: flagKey',
      () => v.validateDeleteVariant({ namespaceKey: '', flagKey: '', id: 'i' }),
      'invalid field flagKey: must not be empty',
    ],

    [
      'segment create: key',
      () => v.validateCreateSegment({ ...segment, key: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'segment create: regex',
      () => v.validateCreateSegment({ ...segment, key: 'é' }),
      'invalid field key: contains invalid characters',
    ],
    [
      'segment create: name',
      () => v.validateCreateSegment({ ...segment, name: '' }),
      'invalid field name: must not be empty',
    ],
    [
      'segment update: name',
      () => v.validateUpdateSegment({ ...segment, name: '' }),
      'invalid field name: must not be empty',
    ],
    [
      'segment get: key',
      () => v.validateGetSegment({ namespaceKey: '', key: '', reference: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'segment delete: key',
      () => v.validateDeleteSegment({ namespaceKey: '', key: '' }),
      'invalid field key: must not be empty',
    ],
    [
      'segment list: limit rule',
      () => v.validateListSegments({ ...list, namespaceKey: '', offset: 3 }),
      'limit must be set when offset or pageToken is set',
    ],

    [
      'rule create: flagKey',
      () => v.validateCreateRule({ ...rule, flagKey: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'rule create: no segments',
      () => v.validateCreateRule({ ...rule, segmentKeys: [] }),
      'invalid field segmentKey or segmentKeys: must not be empty',
    ],
    [
      'rule create: both',
      () => v.validateCreateRule({ ...rule, segmentKey: 'a' }),
      'invalid field segmentKey or segmentKeys: only one can be present',
    ],
    [
      'rule create: rank 0',
      () => v.validateCreateRule({ ...rule, rank: 0 }),
      'invalid field rank: must be greater than 0',
    ],
    [
      'rule create: rank -1',
      () => v.validateCreateRule({ ...rule, rank: -1 }),
      'invalid field rank: must be greater than 0',
    ],
    [
      'rule create: segmentKey only',
      () => v.validateCreateRule({ ...rule, segmentKey: 'a', segmentKeys: [] }),
      'ok',
    ],
    [
      'rule update: id',
      () => v.validateUpdateRule({ ...rule, id: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'rule update: flagKey',
      () => v.validateUpdateRule({ ...rule, id: 'i', flagKey: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'rule update: segments',
      () => v.validateUpdateRule({ ...rule, id: 'i', segmentKeys: [] }),
      'invalid field segmentKey or segmentKeys: must not be empty',
    ],
    [
      'rule get: id',
      () => v.validateGetRule({ namespaceKey: '', flagKey: 'f', id: '', reference: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'rule get: flagKey',
      () => v.validateGetRule({ namespaceKey: '', flagKey: '', id: 'i', reference: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'rule delete: id',
      () => v.validateDeleteRule({ namespaceKey: '', flagKey: 'f', id: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'rule list: flagKey',
      () => v.validateListRules({ ...list, namespaceKey: '', flagKey: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'rule list: limit rule',
      () => v.validateListRules({ ...list, namespaceKey: '', flagKey: 'f', pageToken: 'x' }),
      'limit must be set when offset or pageToken is set',
    ],
    [
      'rule order: flagKey',
      () => v.validateOrderRules({ namespaceKey: '', flagKey: '', ruleIds: ['a', 'b'] }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'rule order: one id',
      () => v.validateOrderRules({ namespaceKey: '', flagKey: 'f', ruleIds: ['a'] }),
      'invalid field ruleIds: must contain atleast 2 elements',
    ],

    [
      'distribution create: flagKey',
      () => v.validateCreateDistribution({ ...dist, flagKey: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'distribution create: ruleId',
      () => v.validateCreateDistribution({ ...dist, ruleId: '' }),
      'invalid field ruleId: must not be empty',
    ],
    [
      'distribution create: variantId',
      () => v.validateCreateDistribution({ ...dist, variantId: '' }),
      'invalid field variantId: must not be empty',
    ],
    [
      'distribution create: below 0',
      () => v.validateCreateDistribution({ ...dist, rollout: -0.01 }),
      "invalid field rollout: must be greater than or equal to '0'",
    ],
    [
      'distribution create: above 100',
      () => v.validateCreateDistribution({ ...dist, rollout: 100.01 }),
      "invalid field rollout: must be less than or equal to '100'",
    ],
    [
      'distribution create: bounds',
      () => v.validateCreateDistribution({ ...dist, rollout: 100 }),
      'ok',
    ],
    [
      'distribution create: NaN is not within the range',
      () => v.validateCreateDistribution({ ...dist, rollout: NaN }),
      "invalid field rollout: must be greater than or equal to '0'",
    ],
    [
      'distribution update: NaN is not within the range',
      () => v.validateUpdateDistribution({ ...dist, id: 'd', rollout: NaN }),
      "invalid field rollout: must be greater than or equal to '0'",
    ],
    [
      'distribution create: infinity',
      () => v.validateCreateDistribution({ ...dist, rollout: Infinity }),
      "invalid field rollout: must be less than or equal to '100'",
    ],
    [
      'distribution update: id',
      () => v.validateUpdateDistribution({ ...dist, id: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'distribution delete: variantId',
      () => v.validateDeleteDistribution({ ...dist, id: 'd', variantId: '' }),
      'invalid field variantId: must not be empty',
    ],
    [
      'distribution delete: ruleId',
      () => v.validateDeleteDistribution({ ...dist, id: 'd', ruleId: '' }),
      'invalid field ruleId: must not be empty',
    ],

    [
      'rollout create: flagKey',
      () => v.validateCreateRollout({ ...rollout, flagKey: '' }),
      'invalid field flagKey: must not be empty',
    ],
    ['rollout create: no rule passes', () => v.validateCreateRollout(rollout), 'ok'],
    [
      'rollout create: rank 0, as for rules',
      () =>
        v.validateCreateRollout({ ...rollout, rank: 0, threshold: { percentage: 0, value: true } }),
      'invalid field rank: must be greater than 0',
    ],
    [
      'rollout create: negative rank',
      () =>
        v.validateCreateRollout({
          ...rollout,
          rank: -1,
          segment: { ...segs, value: true },
        }),
      'invalid field rank: must be greater than 0',
    ],
    [
      'rollout create: percentage NaN',
      () => v.validateCreateRollout({ ...rollout, threshold: { percentage: NaN, value: true } }),
      'invalid field threshold.percentage: must be within range [0, 100]',
    ],
    [
      'rollout update: percentage NaN',
      () =>
        v.validateUpdateRollout({
          ...rollout,
          id: 'i',
          threshold: { percentage: NaN, value: true },
        }),
      'invalid field threshold.percentage: must be within range [0, 100]',
    ],
    [
      'rollout create: percentage < 0',
      () => v.validateCreateRollout({ ...rollout, threshold: { percentage: -1, value: true } }),
      'invalid field threshold.percentage: must be within range [0, 100]',
    ],
    [
      'rollout create: percentage > 100',
      () => v.validateCreateRollout({ ...rollout, threshold: { percentage: 101, value: true } }),
      'invalid field threshold.percentage: must be within range [0, 100]',
    ],
    [
      'rollout create: segment empty',
      () =>
        v.validateCreateRollout({ ...rollout, segment: { ...segs, segmentKeys: [], value: true } }),
      'invalid field segmentKey or segmentKeys: must not be empty',
    ],
    [
      'rollout create: segment both',
      () =>
        v.validateCreateRollout({ ...rollout, segment: { ...segs, segmentKey: 'x', value: true } }),
      'invalid field segmentKey or segmentKeys: only one can be present',
    ],
    [
      'rollout update: id',
      () => v.validateUpdateRollout({ ...rollout, id: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'rollout update: flagKey',
      () => v.validateUpdateRollout({ ...rollout, id: 'i', flagKey: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'rollout delete: id',
      () => v.validateDeleteRollout({ namespaceKey: '', flagKey: 'f', id: '' }),
      'invalid field id: must not be empty',
    ],
    [
      'rollout order: one id',
      () => v.validateOrderRollouts({ namespaceKey: '', flagKey: 'f', rolloutIds: [] }),
      'invalid field rolloutIds: must contain atleast 2 elements',
    ],
    [
      'rollout order: flagKey',
      () => v.validateOrderRollouts({ namespaceKey: '', flagKey: '', rolloutIds: [] }),
      'invalid field flagKey: must not be empty',
    ],

    [
      'legacy evaluation: flagKey',
      () => v.validateLegacyEvaluationRequest({ flagKey: '', entityId: '' }),
      'invalid field flagKey: must not be empty',
    ],
    [
      'legacy evaluation: entityId',
      () => v.validateLegacyEvaluationRequest({ flagKey: 'f', entityId: '' }),
      'invalid field entityId: must not be empty',
    ],
  ];

  it.each(cases)('%s', (_name, check, expected) => {
    expect(outcome(check)).toBe(expected);
  });

  it('raises ValidationError with field and reason for field failures', () => {
    try {
      v.validateCreateFlag({ ...flag, name: '' });
      throw new Error('not raised');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({
        field: 'name',
        reason: 'must not be empty',
        kind: 'invalid_argument',
      });
    }
  });
});
