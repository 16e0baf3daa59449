import type { Flag, Page, RolloutSegment, Rule } from '../../domain/model';
import type { Shape, Shapes } from './message-encoder';

/*
 * Where a domain value differs in shape from the flipt.* message it is written as. Every
 * other message is written from the domain object field for field, by name.
 */

/**
 * Flipt's wire form of a segment set: one segment travels in the deprecated `segmentKey`
 * with `segmentKeys` empty; several travel in `segmentKeys` with `segmentKey` empty.
 * Clients rely on that shape.
 */
export function segmentKeyFields(keys: readonly string[]): {
  segmentKey: string;
  segmentKeys: string[];
} {
  return keys.length === 1
    ? { segmentKey: keys[0] as string, segmentKeys: [] }
    : { segmentKey: '', segmentKeys: [...keys] };
}

/** A Page into a list message whose repeated field is `field`. */
const page =
  <T>(field: string, item: (value: T) => unknown = (v) => v): Shape =>
  (p: Page<T>) => ({
    [field]: p.items.map(item),
    nextPageToken: p.nextPageToken,
    totalCount: p.totalCount,
  });

export const FLIPT_SHAPES: Shapes = {
  'flipt.Rule': (r: Rule) => ({ ...r, ...segmentKeyFields(r.segmentKeys) }),
  'flipt.RolloutSegment': (s: RolloutSegment) => ({ ...s, ...segmentKeyFields(s.segmentKeys) }),
  'flipt.NamespaceList': page('namespaces'),
  'flipt.FlagList': page('flags'),
  'flipt.SegmentList': page('segments'),
  'flipt.RuleList': page('rules'),
  // RolloutList's repeated field is called `rules` in Flipt's proto.
  'flipt.RolloutList': page('rules'),
};

/** A flag as ListFlags prints it over HTTP: a NULL metadata as `{}`. */
export const flagInList = (f: Flag): Flag =>
  f.metadata === undefined ? { ...f, metadata: {} } : f;

/**
 * Flipt's gateway prints a NULL metadata as `{}` in ListFlags while GetFlag and the writes
 * leave it out (a quirk clients can observe); the gRPC answer leaves it out everywhere.
 */
export const FLIPT_JSON_SHAPES: Shapes = {
  ...FLIPT_SHAPES,
  'flipt.FlagList': page('flags', flagInList),
};
