import { float32ToJsonNumber } from '../evaluation';
import type { Flag, JsonObject, Rollout, Rule, Segment, Variant, Namespace } from '../model';
import { sortKeys } from './canonical-json';
import { LATEST_DOCUMENT_VERSION } from './versions';

/*
 * Export: the configuration of a namespace as a portable document, written as plain values
 * whose key order is the format's field order. The same configuration always gives the same
 * value, so the text a writer makes from it is stable and diffs cleanly in git. Fields are left
 * out when empty, except `enabled`, a distribution's `rollout` and a threshold's `percentage`.
 * Ranks are not written: the order of rules and rollouts carries them.
 */

export interface NamespaceConfiguration {
  readonly namespace: Namespace;
  /** In creation order. */
  readonly flags: readonly Flag[];
  /** In creation order. */
  readonly segments: readonly Segment[];
  /** Every rule of every flag, in rank order per flag. */
  readonly rules: readonly Rule[];
  /** Every rollout of every flag, in rank order per flag. */
  readonly rollouts: readonly Rollout[];
}

export interface ExportOptions {
  /** Flags and segments by key instead of creation order. */
  readonly sortByKey: boolean;
  /** Whether the document carries `version` (only the first of a stream does). */
  readonly withVersion: boolean;
}

type Out = Record<string, unknown>;

const byKey = <T extends { readonly key: string }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

/** Sets `name` only when the value is not empty. */
function put(out: Out, name: string, value: unknown): void {
  if (value === undefined || value === '' || value === false) return;
  if (Array.isArray(value) && value.length === 0) return;
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return;
  out[name] = value;
}

/** Stored JSON text as a value; text that does not parse is kept as a string. */
function jsonValue(text: string): unknown {
  try {
    return sortKeys(JSON.parse(text));
  } catch {
    return text;
  }
}

const group = <T extends { readonly flagKey: string }>(items: readonly T[]): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(item.flagKey);
    if (list === undefined) out.set(item.flagKey, [item]);
    else list.push(item);
  }
  return out;
};

export function encodeDocument(config: NamespaceConfiguration, options: ExportOptions): Out {
  const doc: Out = {};
  if (options.withVersion) doc['version'] = LATEST_DOCUMENT_VERSION;
  const ns: Out = { key: config.namespace.key };
  put(ns, 'name', config.namespace.name);
  put(ns, 'description', config.namespace.description);
  doc['namespace'] = ns;
  const rules = group(config.rules);
  const rollouts = group(config.rollouts);
  const flags = options.sortByKey ? byKey(config.flags) : config.flags;
  put(
    doc,
    'flags',
    flags.map((f) => encodeFlag(f, rules.get(f.key) ?? [], rollouts.get(f.key) ?? [])),
  );
  const segments = options.sortByKey ? byKey(config.segments) : config.segments;
  put(doc, 'segments', segments.map(encodeSegment));
  return doc;
}

function encodeFlag(flag: Flag, rules: readonly Rule[], rollouts: readonly Rollout[]): Out {
  const out: Out = { key: flag.key };
  put(out, 'name', flag.name);
  out['type'] = flag.type;
  put(out, 'description', flag.description);
  out['enabled'] = flag.enabled;
  if (flag.metadata !== undefined) put(out, 'metadata', sortKeys(flag.metadata) as JsonObject);
  const variantKeys = new Map(flag.variants.map((v) => [v.id, v.key]));
  put(
    out,
    'variants',
    flag.variants.map((v) => encodeVariant(v, flag.defaultVariant?.id === v.id)),
  );
  put(
    out,
    'rules',
    rules.map((r) => encodeRule(r, variantKeys)),
  );
  put(out, 'rollouts', rollouts.map(encodeRollout));
  return out;
}

function encodeVariant(variant: Variant, isDefault: boolean): Out {
  const out: Out = { key: variant.key };
  put(out, 'name', variant.name);
  put(out, 'description', variant.description);
  put(out, 'default', isDefault);
  if (variant.attachment !== '') out['attachment'] = jsonValue(variant.attachment);
  return out;
}

function encodeRule(rule: Rule, variantKeys: ReadonlyMap<string, string>): Out {
  const out: Out = {};
  out['segment'] =
    rule.segmentKeys.length === 1
      ? rule.segmentKeys[0]
      : { keys: [...rule.segmentKeys], operator: rule.segmentOperator };
  put(
    out,
    'distributions',
    rule.distributions.map((d) => ({
      variant: variantKeys.get(d.variantId) ?? d.variantId,
      rollout: float32ToJsonNumber(d.rollout),
    })),
  );
  return out;
}

function encodeRollout(rollout: Rollout): Out {
  const out: Out = {};
  put(out, 'description', rollout.description);
  if (rollout.segment !== undefined) {
    const s = rollout.segment;
    const segment: Out = {};
    if (s.segmentKeys.length === 1) segment['key'] = s.segmentKeys[0];
    else segment['keys'] = [...s.segmentKeys];
    if (s.segmentOperator === 'AND_SEGMENT_OPERATOR') segment['operator'] = s.segmentOperator;
    put(segment, 'value', s.value);
    out['segment'] = segment;
  } else if (rollout.threshold !== undefined) {
    const threshold: Out = { percentage: float32ToJsonNumber(rollout.threshold.percentage) };
    put(threshold, 'value', rollout.threshold.value);
    out['threshold'] = threshold;
  }
  return out;
}

function encodeSegment(segment: Segment): Out {
  const out: Out = { key: segment.key };
  put(out, 'name', segment.name);
  put(out, 'description', segment.description);
  out['match_type'] = segment.matchType;
  put(
    out,
    'constraints',
    segment.constraints.map((c) => {
      const constraint: Out = { type: c.type, property: c.property, operator: c.operator };
      put(constraint, 'value', c.value);
      put(constraint, 'description', c.description);
      return constraint;
    }),
  );
  return out;
}
