import { AuthenticationEntity } from './authentication-entity';
import { ConstraintEntity } from './constraint-entity';
import { DistributionEntity } from './distribution-entity';
import { FlagEntity } from './flag-entity';
import { NamespaceEntity } from './namespace-entity';
import { NamespaceTombstoneEntity } from './namespace-tombstone-entity';
import { OperationLockEntity } from './operation-lock-entity';
import { RolloutEntity } from './rollout-entity';
import { RolloutSegmentEntity } from './rollout-segment-entity';
import { RolloutSegmentReferenceEntity } from './rollout-segment-reference-entity';
import { RolloutThresholdEntity } from './rollout-threshold-entity';
import { RuleEntity } from './rule-entity';
import { RuleSegmentEntity } from './rule-segment-entity';
import { SegmentEntity } from './segment-entity';
import { VariantEntity } from './variant-entity';

export {
  AuthenticationEntity,
  ConstraintEntity,
  DistributionEntity,
  FlagEntity,
  NamespaceEntity,
  NamespaceTombstoneEntity,
  OperationLockEntity,
  RolloutEntity,
  RolloutSegmentEntity,
  RolloutSegmentReferenceEntity,
  RolloutThresholdEntity,
  RuleEntity,
  RuleSegmentEntity,
  SegmentEntity,
  VariantEntity,
};

export const ALL_ENTITIES = [
  NamespaceEntity,
  FlagEntity,
  VariantEntity,
  SegmentEntity,
  ConstraintEntity,
  RuleEntity,
  RuleSegmentEntity,
  DistributionEntity,
  RolloutEntity,
  RolloutThresholdEntity,
  RolloutSegmentEntity,
  RolloutSegmentReferenceEntity,
  AuthenticationEntity,
  OperationLockEntity,
  NamespaceTombstoneEntity,
];
