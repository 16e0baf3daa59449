import type {
  Constraint,
  Distribution,
  Flag,
  Namespace,
  Page,
  Rollout,
  Rule,
  Segment,
  Variant,
} from '../../domain/model';
import { float32ToJsonNumber, formatTimestamp } from '../../domain/evaluation';
import { FLIPT_JSON_SHAPES, flagInList, segmentKeyFields } from '../rpc/flipt-shapes';
import { MessageEncoders, type JsonOut } from '../rpc/message-encoder';
import { messageType } from '../rpc/proto-root';

/** The wire formats of timestamps and float32 values are shared with the evaluation side. */
export { float32ToJsonNumber, formatTimestamp, segmentKeyFields };
export type { JsonOut, JsonValue } from '../rpc/message-encoder';

/**
 * Domain -> Flipt JSON (protojson with EmitDefaultValues), written from the flipt.* messages
 * of flipt.proto: lowerCamelCase names in proto field order, zero values emitted, unset
 * message fields omitted, enums by name (see src/adapters/rpc/message-encoder.ts).
 */
export const FLIPT_JSON = new MessageEncoders('json', FLIPT_JSON_SHAPES);

/**
 * The same for `?pretty`: Flipt's gateway then switches to a marshaller without
 * EmitDefaultValues, so zero values are left out (and the text is indented).
 */
export const FLIPT_JSON_SPARSE = new MessageEncoders('json', FLIPT_JSON_SHAPES, messageType, {
  emitDefaults: false,
});

const presenter =
  <T>(type: string) =>
  (value: T): JsonOut =>
    FLIPT_JSON.encode(type, value) as JsonOut;

export interface FlagPresentation {
  /**
   * ListFlags prints a NULL metadata as `{}` while GetFlag and writes omit it (a Flipt
   * quirk clients can observe).
   */
  readonly inList?: boolean;
}

export const presentFlag = (flag: Flag, opts: FlagPresentation = {}): JsonOut =>
  FLIPT_JSON.encode('flipt.Flag', opts.inList === true ? flagInList(flag) : flag) as JsonOut;

export const presentNamespace = presenter<Namespace>('flipt.Namespace');
export const presentVariant = presenter<Variant>('flipt.Variant');
export const presentConstraint = presenter<Constraint>('flipt.Constraint');
export const presentSegment = presenter<Segment>('flipt.Segment');
export const presentDistribution = presenter<Distribution>('flipt.Distribution');
export const presentRule = presenter<Rule>('flipt.Rule');
export const presentRollout = presenter<Rollout>('flipt.Rollout');
export const presentNamespaceList = presenter<Page<Namespace>>('flipt.NamespaceList');
export const presentFlagList = presenter<Page<Flag>>('flipt.FlagList');
export const presentSegmentList = presenter<Page<Segment>>('flipt.SegmentList');
export const presentRuleList = presenter<Page<Rule>>('flipt.RuleList');
export const presentRolloutList = presenter<Page<Rollout>>('flipt.RolloutList');
