export {
  assembleNamespace,
  compileNamespace,
  compileNamespaceInBatches,
  findFlag,
  type CompiledFlag,
  type CompiledNamespace,
  type CompiledRule,
  type CompiledRollout,
} from './compile-namespace';
export {
  evaluateBoolean,
  evaluateBooleanFlag,
  type FlagEvaluationRequest,
} from './evaluate-boolean';
export { evaluateVariant, evaluateVariantFlag } from './evaluate-variant';
export {
  evaluateBatch,
  type BatchItemErrorListener,
  type NamespaceResolver,
} from './evaluate-batch';
export { UnevaluableFlagError } from './evaluation-errors';
export {
  buildClientSnapshot,
  clientSnapshotProfile,
  float32ToJsonNumber,
  formatTimestamp,
  parseTolerantSemver,
} from './client-snapshot';
export type { EvaluationContext } from './constraint';
export { crc32 } from './crc32';
export { distributionWidth } from './bucketing';
export { explainFlag } from './explain';
export { flagsAffected, patchNamespace, type TouchedKeys } from './patch-namespace';
