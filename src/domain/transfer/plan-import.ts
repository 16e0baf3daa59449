import { isDomainError } from '../errors';
import type {
  CreateConstraintRequest,
  CreateFlagRequest,
  CreateNamespaceRequest,
  CreateSegmentRequest,
  CreateVariantRequest,
  JsonObject,
  SegmentOperator,
} from '../model';
import * as v from '../validation';
import { goQuote } from '../validation';
import { canonicalJson, sortKeys } from './canonical-json';
import type { DocumentFlag, DocumentRule, DocumentSegment, PortableDocument } from './document';
import type { TransferProblem } from './problems';
import { itemStep, join } from './value-reader';
import { FIELD_VERSIONS, versionAtLeast } from './versions';

/** What the target already holds, by namespace key. */
export interface ExistingNamespace {
  readonly flagKeys: ReadonlySet<string>;
  readonly segmentKeys: ReadonlySet<string>;
}
export type ExistingConfiguration = ReadonlyMap<string, ExistingNamespace>;

export interface ImportOptions {
  /**
   * Empty every namespace first (those in `existing`), removing those the documents do not name
   * (but `default`, which is only emptied).
   */
  readonly drop: boolean;
  /** Leave flags and segments whose key exists alone instead of refusing the import. */
  readonly skipExisting: boolean;
}

export interface PlannedSegment {
  readonly segment: CreateSegmentRequest;
  /** Checked and normalised as the API stores them, in document order. */
  readonly constraints: readonly CreateConstraintRequest[];
}

export interface PlannedRule {
  readonly segmentKeys: readonly string[];
  readonly segmentOperator: SegmentOperator;
  readonly rank: number;
  readonly distributions: ReadonlyArray<{ readonly variantKey: string; readonly rollout: number }>;
}

export interface PlannedRollout {
  readonly rank: number;
  readonly description: string;
  readonly segment?: {
    readonly segmentKeys: readonly string[];
    readonly segmentOperator: SegmentOperator;
    readonly value: boolean;
  };
  readonly threshold?: { readonly percentage: number; readonly value: boolean };
}

export interface PlannedFlag {
  readonly flag: CreateFlagRequest;
  /** Attachments compacted; in document order. */
  readonly variants: readonly CreateVariantRequest[];
  readonly defaultVariantKey?: string;
  /** In document order, which is rank order. */
  readonly rules: readonly PlannedRule[];
  readonly rollouts: readonly PlannedRollout[];
}

export interface PlannedNamespace {
  readonly key: string;
  /** Present when the namespace is to be created. */
  readonly create?: CreateNamespaceRequest;
  /** Created before the flags, whose rules may use them. */
  readonly segments: readonly PlannedSegment[];
  readonly flags: readonly PlannedFlag[];
  readonly skippedFlags: readonly string[];
  readonly skippedSegments: readonly string[];
}

export interface ImportPlan {
  /** Namespaces whose content goes first (with `drop`); in the order the target lists them. */
  readonly dropped: readonly string[];
  /** In the order the documents first name them. */
  readonly namespaces: readonly PlannedNamespace[];
}

export type PlanResult =
  | { readonly ok: true; readonly plan: ImportPlan }
  | { readonly ok: false; readonly problems: readonly TransferProblem[] };

/** Everything a document stream asks for, checked against the rules the API applies. */
export function planImport(
  documents: readonly PortableDocument[],
  existing: ExistingConfiguration,
  options: ImportOptions,
): PlanResult {
  const problems: TransferProblem[] = [];
  const byKey = new Map<string, NamespacePlanner>();
  for (const doc of documents) {
    const key = doc.namespace.key;
    let planner = byKey.get(key);
    if (planner === undefined) {
      // With drop, a namespace the documents name is kept, emptied.
      const current = options.drop ? (existing.has(key) ? EMPTY : undefined) : existing.get(key);
      planner = new NamespacePlanner(key, current, options, problems);
      byKey.set(key, planner);
    }
    planner.add(doc);
  }
  for (const planner of byKey.values()) planner.finish();
  if (problems.length > 0) {
    return { ok: false, problems: [...problems].sort((a, b) => a.document - b.document) };
  }
  return {
    ok: true,
    plan: {
      dropped: options.drop ? [...existing.keys()] : [],
      namespaces: [...byKey.values()].map((p) => p.result()),
    },
  };
}

const EMPTY: ExistingNamespace = { flagKeys: new Set(), segmentKeys: new Set() };

class NamespacePlanner {
  private create: CreateNamespaceRequest | undefined;
  private readonly segments: PlannedSegment[] = [];
  private readonly flags: PlannedFlag[] = [];
  private readonly skippedFlags: string[] = [];
  private readonly skippedSegments: string[] = [];
  private readonly flagKeys = new Set<string>();
  private readonly segmentKeys = new Set<string>();
  /** Flags whose segments are checked once every document of the namespace is read. */
  private readonly pendingRules: Array<() => void> = [];
  private document = 0;

  constructor(
    private readonly key: string,
    private readonly current: ExistingNamespace | undefined,
    private readonly options: ImportOptions,
    private readonly problems: TransferProblem[],
  ) {}

  private problem(path: string, reason: string): void {
    this.problems.push({ document: this.document, path, reason });
  }

  /** Runs a domain rule; its message becomes the problem's reason. */
  private passes(path: string, rule: () => void): boolean {
    return this.normalised(path, () => (rule(), true)) === true;
  }

  /** Runs a domain rule that returns the request as stored; undefined when it fails. */
  private normalised<T>(path: string, rule: () => T): T | undefined {
    try {
      return rule();
    } catch (err) {
      if (!isDomainError(err)) throw err;
      this.problem(path, err.message);
      return undefined;
    }
  }

  add(doc: PortableDocument): void {
    this.document = doc.index;
    const ns = this.key;
    if (this.current === undefined && this.create === undefined) {
      const req: CreateNamespaceRequest = {
        key: ns,
        name: doc.namespace.name === '' ? ns : doc.namespace.name,
        description: doc.namespace.description,
      };
      this.passes('namespace', () => v.validateCreateNamespace(req));
      this.create = req;
    }
    doc.segments.forEach((s, i) =>
      this.addSegment(s, join(ns, `segments/${itemStep(s.key, i + 1)}`)),
    );
    doc.flags.forEach((f, i) => this.addFlag(doc, f, join(ns, `flags/${itemStep(f.key, i + 1)}`)));
  }

  private addSegment(s: DocumentSegment, path: string): void {
    const ns = this.key;
    if (this.segmentKeys.has(s.key)) {
      this.problem(path, `segment ${goQuote(`${ns}/${s.key}`)} is not unique`);
      return;
    }
    this.segmentKeys.add(s.key);
    if (this.current?.segmentKeys.has(s.key)) {
      if (this.options.skipExisting) this.skippedSegments.push(s.key);
      else this.problem(path, `segment ${goQuote(`${ns}/${s.key}`)} is not unique`);
      return;
    }
    const segment: CreateSegmentRequest = {
      namespaceKey: ns,
      key: s.key,
      name: s.name,
      description: s.description,
      matchType: s.matchType,
    };
    this.passes(path, () => v.validateCreateSegment(segment));
    const constraints = s.constraints.flatMap(
      (c, i) =>
        this.normalised(join(path, `constraints/${i + 1}`), () =>
          v.validateCreateConstraint({ namespaceKey: ns, segmentKey: s.key, ...c }),
        ) ?? [],
    );
    this.segments.push({ segment, constraints });
  }

  /** True when rules and rollouts may name the segment. */
  private segmentExists(key: string): boolean {
    return this.segmentKeys.has(key) || (this.current?.segmentKeys.has(key) ?? false);
  }

  private addFlag(doc: PortableDocument, f: DocumentFlag, path: string): void {
    const ns = this.key;
    if (this.flagKeys.has(f.key)) {
      this.problem(path, `flag ${goQuote(`${ns}/${f.key}`)} is not unique`);
      return;
    }
    this.flagKeys.add(f.key);
    if (this.current?.flagKeys.has(f.key)) {
      if (this.options.skipExisting) this.skippedFlags.push(f.key);
      else this.problem(path, `flag ${goQuote(`${ns}/${f.key}`)} is not unique`);
      return;
    }
    const flag: CreateFlagRequest = {
      namespaceKey: ns,
      key: f.key,
      name: f.name,
      description: f.description,
      enabled: f.enabled,
      type: f.type,
      ...(f.metadata === undefined ? {} : { metadata: sortKeys(f.metadata) as JsonObject }),
    };
    this.passes(path, () => v.validateCreateFlag(flag));

    const variantKeys = new Set<string>();
    let defaultVariantKey: string | undefined;
    const variants = f.variants.flatMap((variant, i) => {
      const at = join(path, `variants/${itemStep(variant.key, i + 1)}`);
      if (variantKeys.has(variant.key)) {
        this.problem(
          at,
          `variant ${goQuote(variant.key)} is not unique for flag ${goQuote(`${ns}/${f.key}`)}`,
        );
        return [];
      }
      variantKeys.add(variant.key);
      if (variant.default) defaultVariantKey = variant.key;
      const req: CreateVariantRequest = {
        namespaceKey: ns,
        flagKey: f.key,
        key: variant.key,
        name: variant.name,
        description: variant.description,
        attachment: variant.attachment === undefined ? '' : canonicalJson(variant.attachment),
      };
      return this.normalised(at, () => v.validateCreateVariant(req)) ?? [];
    });

    const rules: PlannedRule[] = [];
    f.rules.forEach((rule, i) => {
      const planned = this.rule(doc, f, rule, i, variantKeys, join(path, `rules/${i + 1}`));
      if (planned !== undefined) rules.push(planned);
    });
    const rollouts: PlannedRollout[] = [];
    f.rollouts.forEach((rollout, i) => {
      const at = join(path, `rollouts/${i + 1}`);
      const raw = {
        namespaceKey: ns,
        flagKey: f.key,
        rank: i + 1,
        description: rollout.description,
        ...(rollout.segment === undefined
          ? {}
          : { segment: { segmentKey: '', ...rollout.segment } }),
        ...(rollout.threshold === undefined ? {} : { threshold: rollout.threshold }),
      };
      if (!this.passes(at, () => v.validateCreateRollout(raw))) return;
      let segment: PlannedRollout['segment'];
      if (rollout.segment !== undefined) {
        const resolved = v.resolveSegments({ segmentKey: '', ...rollout.segment });
        this.requireSegments(resolved.segmentKeys, join(at, 'segment'));
        segment = { ...resolved, value: rollout.segment.value };
      }
      rollouts.push({
        rank: i + 1,
        description: rollout.description,
        ...(segment === undefined ? {} : { segment }),
        ...(rollout.threshold === undefined ? {} : { threshold: rollout.threshold }),
      });
    });
    this.flags.push({
      flag,
      variants,
      ...(defaultVariantKey === undefined ? {} : { defaultVariantKey }),
      rules,
      rollouts,
    });
  }

  private rule(
    doc: PortableDocument,
    f: DocumentFlag,
    rule: DocumentRule,
    index: number,
    variantKeys: ReadonlySet<string>,
    path: string,
  ): PlannedRule | undefined {
    const ns = this.key;
    const implicit = versionAtLeast(doc.version, FIELD_VERSIONS.implicitRank);
    const rank = rule.rank > 0 ? rule.rank : implicit ? index + 1 : 0;
    const raw = {
      namespaceKey: ns,
      flagKey: f.key,
      segmentKey: '',
      segmentKeys: rule.segmentKeys,
      segmentOperator: rule.segmentOperator,
      rank,
    };
    if (!this.passes(path, () => v.validateCreateRule(raw))) return undefined;
    const resolved = v.resolveSegments(raw);
    this.requireSegments(resolved.segmentKeys, join(path, 'segment'));
    let total = 0;
    const distributions = rule.distributions.flatMap((d, i) => {
      const at = join(path, `distributions/${i + 1}`);
      if (!variantKeys.has(d.variant)) {
        this.problem(
          at,
          `variant ${goQuote(d.variant)} not found for flag ${goQuote(`${ns}/${f.key}`)}`,
        );
        return [];
      }
      const ok = this.passes(at, () =>
        v.validateCreateDistribution({
          namespaceKey: ns,
          flagKey: f.key,
          ruleId: `rule ${index + 1}`,
          variantId: d.variant,
          rollout: d.rollout,
        }),
      );
      if (!ok) return [];
      total += Math.fround(d.rollout);
      return [{ variantKey: d.variant, rollout: d.rollout }];
    });
    // Rounding of float32 percentages must not refuse 33.33 + 33.33 + 33.34.
    if (total > 100.0001) {
      this.problem(
        join(path, 'distributions'),
        `rollouts add up to ${Number(total.toFixed(4))}%, more than 100%`,
      );
    }
    return { ...resolved, rank, distributions };
  }

  private requireSegments(keys: readonly string[], path: string): void {
    const ns = this.key;
    const document = this.document;
    // A segment defined further down, or in a later document of the namespace, is fine.
    this.pendingRules.push(() => {
      for (const key of keys) {
        if (!this.segmentExists(key)) {
          this.problems.push({
            document,
            path,
            reason: `segment ${goQuote(`${ns}/${key}`)} not found`,
          });
        }
      }
    });
  }

  result(): PlannedNamespace {
    return {
      key: this.key,
      ...(this.create === undefined ? {} : { create: this.create }),
      segments: this.segments,
      flags: this.flags,
      skippedFlags: this.skippedFlags,
      skippedSegments: this.skippedSegments,
    };
  }

  /** Checks the segments rules and rollouts name, once every document has been read. */
  finish(): void {
    for (const check of this.pendingRules) check();
  }
}
