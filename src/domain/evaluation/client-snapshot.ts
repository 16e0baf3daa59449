import type { Constraint, Flag, NamespaceData, Rollout, Rule, Segment } from '../model';
import { civilFromDays, parseDateTime } from './go-time';
import { goTrimSpace } from './go-strings';

/**
 * The client-side SDK snapshot (`/internal/v1/evaluation/snapshot/namespace/{key}`) as the
 * protojson object Flipt v1.61.1 sends, except that a rule with several segments appears
 * once (Flipt repeats it, and its distributions, once per segment).
 */

/** Version assumed when `x-flipt-accept-server-version` is absent or unparsable. */
const DEFAULT_CLIENT_VERSION: SemVer = { major: 1, minor: 37, patch: 1, pre: false };
const ENTITY_ID_MIN: SemVer = { major: 1, minor: 38, patch: 0, pre: false };
const DEFAULT_VARIANT_MIN: SemVer = { major: 1, minor: 47, patch: 0, pre: false };

interface SemVer {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Has a pre-release part, which orders it below the bare version. */
  readonly pre: boolean;
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** blang/semver ParseTolerant, which Flipt applies to the version header. */
export function parseTolerantSemver(input: string): SemVer | undefined {
  let s = goTrimSpace(input);
  if (s.startsWith('v')) s = s.slice(1);
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/^[0-9]/.test(t) ? '0' + t : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] as string)) return undefined;
    while (parts.length < 3) parts.push('0');
  }
  const m = SEMVER.exec(parts.join('.'));
  if (m === null) return undefined;
  const pre = m[4];
  if (pre !== undefined && pre.split('.').some((id) => /^0\d+$/.test(id))) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: pre !== undefined };
}

function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + 1);
  }
  out.push(rest);
  return out;
}

const lessThan = (a: SemVer, b: SemVer): boolean =>
  a.major !== b.major
    ? a.major < b.major
    : a.minor !== b.minor
      ? a.minor < b.minor
      : a.patch !== b.patch
        ? a.patch < b.patch
        : a.pre && !b.pre;

/**
 * A float32 as protojson prints it: the shortest decimal that round-trips through
 * float32; NaN and infinities become the strings protojson uses.
 */
export function float32ToJsonNumber(x: number): number | string {
  const f = Math.fround(x);
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return 'Infinity';
  if (f === -Infinity) return '-Infinity';
  for (let p = 1; p <= 9; p++) {
    const n = Number(f.toPrecision(p));
    if (Math.fround(n) === f) return n;
  }
  return f;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/**
 * A google.protobuf.Timestamp as protojson prints it: RFC 3339 in UTC with 0, 3, 6 or 9
 * fractional digits. Accepts any RFC 3339 text (domain timestamps carry six digits);
 * text that does not parse is returned unchanged.
 */
export function formatTimestamp(ts: string): string {
  const instant = parseDateTime(ts);
  if (instant === undefined) return ts;
  const days = Math.floor(instant.seconds / 86400);
  const secs = instant.seconds - days * 86400;
  const [y, mo, d] = civilFromDays(days);
  const ns = instant.nanos;
  const frac =
    ns === 0
      ? ''
      : ns % 1_000_000 === 0
        ? '.' + pad(ns / 1_000_000, 3)
        : ns % 1000 === 0
          ? '.' + pad(ns / 1000, 6)
          : '.' + pad(ns, 9);
  return (
    `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(Math.floor(secs / 3600), 2)}:` +
    `${pad(Math.floor((secs % 3600) / 60), 2)}:${pad(secs % 60, 2)}${frac}Z`
  );
}

const MATCH_TYPE_NAMES: Readonly<Record<string, string>> = {
  ALL_MATCH_TYPE: 'ALL_SEGMENT_MATCH_TYPE',
  ANY_MATCH_TYPE: 'ANY_SEGMENT_MATCH_TYPE',
};

const CONSTRAINT_TYPE_NAMES: Readonly<Record<string, string>> = {
  STRING_COMPARISON_TYPE: 'STRING_CONSTRAINT_COMPARISON_TYPE',
  NUMBER_COMPARISON_TYPE: 'NUMBER_CONSTRAINT_COMPARISON_TYPE',
  BOOLEAN_COMPARISON_TYPE: 'BOOLEAN_CONSTRAINT_COMPARISON_TYPE',
  DATETIME_COMPARISON_TYPE: 'DATETIME_CONSTRAINT_COMPARISON_TYPE',
  ENTITY_ID_COMPARISON_TYPE: 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE',
};

const nameOr = (table: Readonly<Record<string, string>>, key: string, fallback: string) =>
  Object.prototype.hasOwnProperty.call(table, key) ? (table[key] as string) : fallback;

interface SnapshotContext {
  readonly segments: ReadonlyMap<string, Segment>;
  /** Segments already emitted: Flipt reuses the first object built for a key. */
  readonly emitted: Map<string, object>;
  readonly entityIdSupported: boolean;
}

function snapshotSegment(ctx: SnapshotContext, key: string, withConstraintIds: boolean) {
  const done = ctx.emitted.get(key);
  if (done !== undefined) return done;
  const segment = ctx.segments.get(key);
  if (segment === undefined) return undefined;
  const out = {
    key: segment.key,
    name: '',
    description: '',
    matchType: nameOr(MATCH_TYPE_NAMES, segment.matchType, 'ALL_SEGMENT_MATCH_TYPE'),
    constraints: segment.constraints.map((c: Constraint) => {
      let type = nameOr(CONSTRAINT_TYPE_NAMES, c.type, 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE');
      if (type === 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE' && !ctx.entityIdSupported) {
        type = 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE';
      }
      return {
        id: withConstraintIds ? c.id : '',
        type,
        property: c.property,
        operator: c.operator,
        value: c.value,
      };
    }),
  };
  ctx.emitted.set(key, out);
  return out;
}

function snapshotSegments(ctx: SnapshotContext, keys: readonly string[], ids: boolean): object[] {
  const out: object[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) continue;
    seen.add(key);
    const s = snapshotSegment(ctx, key, ids);
    if (s !== undefined) out.push(s);
  }
  return out;
}

function groupByFlag<T extends { readonly flagKey: string }>(
  items: readonly T[],
): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(item.flagKey);
    if (list === undefined) out.set(item.flagKey, [item]);
    else list.push(item);
  }
  return out;
}

function snapshotRule(
  ctx: SnapshotContext,
  variants: ReadonlyMap<string, Flag['variants'][number]>,
  rule: Rule,
) {
  return {
    id: rule.id,
    segments: snapshotSegments(ctx, rule.segmentKeys, true),
    rank: rule.rank,
    segmentOperator: rule.segmentOperator,
    distributions: rule.distributions.flatMap((d) => {
      const v = variants.get(d.variantId);
      if (v === undefined) return [];
      return [
        {
          id: '',
          ruleId: '',
          variantId: d.variantId,
          variantKey: v.key,
          variantAttachment: v.attachment,
          rollout: float32ToJsonNumber(d.rollout),
        },
      ];
    }),
  };
}

function snapshotRollout(ctx: SnapshotContext, r: Rollout) {
  const base = { type: r.type, rank: r.rank };
  if (r.type === 'THRESHOLD_ROLLOUT_TYPE' && r.threshold !== undefined) {
    return {
      ...base,
      threshold: {
        percentage: float32ToJsonNumber(r.threshold.percentage),
        value: r.threshold.value,
      },
    };
  }
  if (r.type === 'SEGMENT_ROLLOUT_TYPE' && r.segment !== undefined) {
    return {
      ...base,
      segment: {
        value: r.segment.value,
        segmentOperator: r.segment.segmentOperator,
        segments: snapshotSegments(ctx, r.segment.segmentKeys, false),
      },
    };
  }
  return base;
}

const clientSemver = (clientVersion: string | undefined): SemVer =>
  (clientVersion === undefined ? undefined : parseTolerantSemver(clientVersion)) ??
  DEFAULT_CLIENT_VERSION;

/**
 * Which of the document's forms a client gets: clients whose versions give the same profile
 * get the same document, so it can be built once for all of them.
 */
export function clientSnapshotProfile(clientVersion: string | undefined): string {
  const version = clientSemver(clientVersion);
  return `${lessThan(version, ENTITY_ID_MIN) ? '' : 'entity-id'}/${lessThan(version, DEFAULT_VARIANT_MIN) ? '' : 'default-variant'}`;
}

/**
 * Builds the snapshot document for `namespaceKey` (as requested). `clientVersion` is the
 * raw `x-flipt-accept-server-version` header: below 1.38.0 ENTITY_ID constraints are sent
 * as UNKNOWN, below 1.47.0 default variants are left out. A segment named by several rules
 * is one object referenced from each of them.
 */
export function buildClientSnapshot(
  namespaceKey: string,
  data: NamespaceData | undefined,
  clientVersion: string | undefined,
): object {
  if (data === undefined) return { namespace: { key: namespaceKey }, flags: [] };
  const version = clientSemver(clientVersion);
  const ctx: SnapshotContext = {
    segments: new Map(data.segments.map((s) => [s.key, s])),
    emitted: new Map(),
    entityIdSupported: !lessThan(version, ENTITY_ID_MIN),
  };
  const withDefaultVariant = !lessThan(version, DEFAULT_VARIANT_MIN);
  const rulesByFlag = groupByFlag(data.rules);
  const rolloutsByFlag = groupByFlag(data.rollouts);
  let variantsFor: Flag | undefined;
  let variantsById = new Map<string, Flag['variants'][number]>();
  const variantsOf = (flag: Flag): ReadonlyMap<string, Flag['variants'][number]> => {
    if (variantsFor !== flag) {
      variantsFor = flag;
      variantsById = new Map(flag.variants.map((v) => [v.id, v]));
    }
    return variantsById;
  };
  const flags = data.flags.map((flag) => {
    const isVariant = flag.type === 'VARIANT_FLAG_TYPE';
    const isBoolean = flag.type === 'BOOLEAN_FLAG_TYPE';
    const out: Record<string, unknown> = {
      key: flag.key,
      name: flag.name,
      description: flag.description,
      enabled: flag.enabled,
      type: flag.type,
      createdAt: formatTimestamp(flag.createdAt),
      updatedAt: formatTimestamp(flag.updatedAt),
      rules: isVariant
        ? (rulesByFlag.get(flag.key) ?? [])
            .filter((r) => r.segmentKeys.some((k) => ctx.segments.has(k)))
            .map((r) => snapshotRule(ctx, variantsOf(flag), r))
        : [],
      rollouts: isBoolean
        ? (rolloutsByFlag.get(flag.key) ?? []).map((r) => snapshotRollout(ctx, r))
        : [],
    };
    if (withDefaultVariant && flag.defaultVariant !== undefined) {
      out.defaultVariant = {
        id: flag.defaultVariant.id,
        key: flag.defaultVariant.key,
        attachment: flag.defaultVariant.attachment,
      };
    }
    return out;
  });
  return { namespace: { key: namespaceKey }, flags };
}
