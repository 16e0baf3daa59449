import {
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  SEGMENT_OPERATORS,
  type SegmentOperator,
} from '../model';
import type {
  DocumentConstraint,
  DocumentDistribution,
  DocumentFlag,
  DocumentNamespace,
  DocumentRollout,
  DocumentRule,
  DocumentSegment,
  DocumentVariant,
  PortableDocument,
} from './document';
import type { TransferProblem } from './problems';
import { itemStep, join, ValueReader } from './value-reader';
import {
  DOCUMENT_VERSIONS,
  FIELD_VERSIONS,
  LATEST_DOCUMENT_VERSION,
  parseDocumentVersion,
  versionAtLeast,
  type DocumentVersion,
} from './versions';

const DOCUMENT_FIELDS = ['version', 'namespace', 'flags', 'segments'];
const NAMESPACE_FIELDS = ['key', 'name', 'description'];
const FLAG_FIELDS = [
  'key',
  'name',
  'type',
  'description',
  'enabled',
  'metadata',
  'variants',
  'rules',
  'rollouts',
];
const VARIANT_FIELDS = ['key', 'name', 'description', 'default', 'attachment'];
const RULE_FIELDS = ['segment', 'rank', 'distributions'];
const DISTRIBUTION_FIELDS = ['variant', 'rollout'];
const ROLLOUT_FIELDS = ['description', 'segment', 'threshold'];
const ROLLOUT_SEGMENT_FIELDS = ['key', 'keys', 'operator', 'value'];
const THRESHOLD_FIELDS = ['percentage', 'value'];
const SEGMENT_FIELDS = ['key', 'name', 'description', 'match_type', 'constraints'];
const CONSTRAINT_FIELDS = ['type', 'property', 'operator', 'value', 'description'];
const MULTI_SEGMENT_FIELDS = ['keys', 'operator'];

export interface DecodedDocuments {
  readonly documents: readonly PortableDocument[];
  readonly problems: readonly TransferProblem[];
}

/**
 * Reads a stream of parsed documents (1-based positions in the order given; undefined for an
 * empty document or one the parser could not read, which is skipped). `parseProblems` are the
 * parser's, reported first. A document with problems is left out of `documents`; the caller
 * refuses the whole import when there are any. A stream without any document is a problem
 * too: an import that silently does nothing hides a wrong file or an empty pipe.
 */
export function decodeDocuments(
  values: readonly unknown[],
  parseProblems: readonly TransferProblem[] = [],
): DecodedDocuments {
  const documents: PortableDocument[] = [];
  const problems: TransferProblem[] = [...parseProblems];
  if (problems.length === 0 && values.every((v) => v === undefined)) {
    return { documents, problems: [{ document: 1, path: '', reason: 'no document to read' }] };
  }
  values.forEach((value, i) => {
    if (value === undefined) return;
    const reader = new ValueReader(i + 1);
    const doc = new DocumentDecoder(reader).decode(value);
    problems.push(...reader.problems);
    if (doc !== undefined && reader.problems.length === 0) documents.push(doc);
  });
  return { documents, problems };
}

class DocumentDecoder {
  private version: DocumentVersion = LATEST_DOCUMENT_VERSION;

  constructor(private readonly r: ValueReader) {}

  decode(value: unknown): PortableDocument | undefined {
    const fields = this.r.map(value, '', 'a map with flags and segments');
    if (fields === undefined) return undefined;
    this.r.onlyKnown(fields, DOCUMENT_FIELDS, '');
    if (fields['version'] !== undefined && fields['version'] !== null) {
      const version = parseDocumentVersion(fields['version']);
      if (version === undefined) {
        this.r.problem(
          'version',
          `unsupported version ${JSON.stringify(fields['version'])} (supported: ${DOCUMENT_VERSIONS.join(', ')})`,
        );
        return undefined;
      }
      this.version = version;
    }
    const namespace = this.namespace(fields['namespace']);
    const base = namespace.key;
    const flags = this.r
      .list(fields, 'flags', base)
      .flatMap((f, i) => this.flag(f, join(base, 'flags'), i + 1) ?? []);
    const segments = this.r
      .list(fields, 'segments', base)
      .flatMap((s, i) => this.segment(s, join(base, 'segments'), i + 1) ?? []);
    return { index: this.r.document, version: this.version, namespace, flags, segments };
  }

  /** Refuses a field the document's version does not have yet. */
  private since(min: DocumentVersion, field: string, path: string): void {
    if (!versionAtLeast(this.version, min)) {
      this.r.problem(path, `${field} is supported in version >=${min}, found ${this.version}`);
    }
  }

  private namespace(value: unknown): DocumentNamespace {
    if (value === undefined || value === null) {
      return { key: 'default', name: '', description: '', form: 'absent' };
    }
    if (value === '') return { key: 'default', name: '', description: '', form: 'absent' };
    if (typeof value === 'string') return { key: value, name: '', description: '', form: 'key' };
    const fields = this.r.map(value, 'namespace', 'a key or a map with key, name and description');
    if (fields === undefined) return { key: 'default', name: '', description: '', form: 'absent' };
    this.since(FIELD_VERSIONS.namespaceDetails, 'namespace.name', 'namespace');
    this.r.onlyKnown(fields, NAMESPACE_FIELDS, 'namespace');
    const key = this.r.string(fields, 'key', 'namespace');
    return {
      key: key === '' ? 'default' : key,
      name: this.r.string(fields, 'name', 'namespace'),
      description: this.r.string(fields, 'description', 'namespace'),
      form: 'details',
    };
  }

  private flag(value: unknown, parent: string, position: number): DocumentFlag | undefined {
    const at = join(parent, `#${position}`);
    const fields = this.r.map(value, at);
    if (fields === undefined) return undefined;
    const key = this.r.string(fields, 'key', at);
    const path = join(parent, itemStep(key, position));
    this.r.onlyKnown(fields, FLAG_FIELDS, path);
    if (fields['type'] !== undefined) this.since(FIELD_VERSIONS.flagType, 'flag.type', path);
    if (fields['rollouts'] !== undefined) {
      this.since(FIELD_VERSIONS.rollouts, 'flag.rollouts', path);
    }
    const metadata = this.r.jsonObject(fields, 'metadata', path);
    return {
      key,
      name: this.r.string(fields, 'name', path),
      type: this.r.enumName(fields, 'type', path, FLAG_TYPES, 'VARIANT_FLAG_TYPE'),
      description: this.r.string(fields, 'description', path),
      enabled: this.r.boolean(fields, 'enabled', path),
      ...(metadata === undefined ? {} : { metadata }),
      variants: this.r
        .list(fields, 'variants', path)
        .flatMap((v, i) => this.variant(v, join(path, 'variants'), i + 1) ?? []),
      rules: this.r
        .list(fields, 'rules', path)
        .flatMap((v, i) => this.rule(v, join(path, `rules/${i + 1}`)) ?? []),
      rollouts: this.r
        .list(fields, 'rollouts', path)
        .flatMap((v, i) => this.rollout(v, join(path, `rollouts/${i + 1}`)) ?? []),
    };
  }

  private variant(value: unknown, parent: string, position: number): DocumentVariant | undefined {
    const fields = this.r.map(value, join(parent, `#${position}`));
    if (fields === undefined) return undefined;
    const key = this.r.string(fields, 'key', join(parent, `#${position}`));
    const path = join(parent, itemStep(key, position));
    this.r.onlyKnown(fields, VARIANT_FIELDS, path);
    const isDefault = this.r.boolean(fields, 'default', path);
    if (fields['default'] !== undefined) {
      this.since(FIELD_VERSIONS.defaultVariant, 'flag.variants.default', path);
    }
    const raw = fields['attachment'];
    return {
      key,
      name: this.r.string(fields, 'name', path),
      description: this.r.string(fields, 'description', path),
      default: isDefault,
      attachment:
        raw === undefined || raw === null
          ? undefined
          : this.r.jsonValue(raw, join(path, 'attachment')),
    };
  }

  /** `segment: key` or, since 1.2, `segment: {keys: [...], operator: ...}`. */
  private ruleSegments(
    value: unknown,
    path: string,
  ): { segmentKeys: string[]; segmentOperator: SegmentOperator } {
    if (typeof value === 'string') {
      return { segmentKeys: [value], segmentOperator: 'OR_SEGMENT_OPERATOR' };
    }
    if (value === undefined || value === null) {
      this.r.problem(path, 'a rule needs a segment');
      return { segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' };
    }
    const fields = this.r.map(value, path, 'a segment key or a map with keys and operator');
    if (fields === undefined) return { segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' };
    this.since(FIELD_VERSIONS.segmentKeys, 'flag.rules.segment.keys', path);
    this.r.onlyKnown(fields, MULTI_SEGMENT_FIELDS, path);
    return {
      segmentKeys: this.r.strings(fields, 'keys', path),
      segmentOperator: this.r.enumName(
        fields,
        'operator',
        path,
        SEGMENT_OPERATORS,
        'OR_SEGMENT_OPERATOR',
      ),
    };
  }

  private rule(value: unknown, path: string): DocumentRule | undefined {
    const fields = this.r.map(value, path);
    if (fields === undefined) return undefined;
    this.r.onlyKnown(fields, RULE_FIELDS, path);
    return {
      ...this.ruleSegments(fields['segment'], join(path, 'segment')),
      rank: this.r.count(fields, 'rank', path),
      distributions: this.r
        .list(fields, 'distributions', path)
        .flatMap((d, i) => this.distribution(d, join(path, `distributions/${i + 1}`)) ?? []),
    };
  }

  private distribution(value: unknown, path: string): DocumentDistribution | undefined {
    const fields = this.r.map(value, path);
    if (fields === undefined) return undefined;
    this.r.onlyKnown(fields, DISTRIBUTION_FIELDS, path);
    return {
      variant: this.r.string(fields, 'variant', path),
      rollout: this.r.number(fields, 'rollout', path),
    };
  }

  private rollout(value: unknown, path: string): DocumentRollout | undefined {
    const fields = this.r.map(value, path);
    if (fields === undefined) return undefined;
    this.r.onlyKnown(fields, ROLLOUT_FIELDS, path);
    const description = this.r.string(fields, 'description', path);
    const segment = fields['segment'];
    const threshold = fields['threshold'];
    const hasSegment = segment !== undefined && segment !== null;
    const hasThreshold = threshold !== undefined && threshold !== null;
    if (hasSegment && hasThreshold) {
      this.r.problem(path, 'a rollout has a segment or a threshold, not both');
      return undefined;
    }
    if (hasSegment) {
      const at = join(path, 'segment');
      const s = this.r.map(segment, at);
      if (s === undefined) return undefined;
      this.r.onlyKnown(s, ROLLOUT_SEGMENT_FIELDS, at);
      const key = this.r.string(s, 'key', at);
      const keys = this.r.strings(s, 'keys', at);
      if (s['keys'] !== undefined) {
        this.since(FIELD_VERSIONS.segmentKeys, 'flag.rollouts.segment.keys', at);
      }
      if (key !== '' && keys.length > 0) {
        this.r.problem(at, 'a rollout segment has key or keys, not both');
      }
      return {
        description,
        segment: {
          segmentKeys: key !== '' ? [key] : keys,
          segmentOperator: this.r.enumName(
            s,
            'operator',
            at,
            SEGMENT_OPERATORS,
            'OR_SEGMENT_OPERATOR',
          ),
          value: this.r.boolean(s, 'value', at),
        },
      };
    }
    if (hasThreshold) {
      const at = join(path, 'threshold');
      const t = this.r.map(threshold, at);
      if (t === undefined) return undefined;
      this.r.onlyKnown(t, THRESHOLD_FIELDS, at);
      return {
        description,
        threshold: {
          percentage: this.r.number(t, 'percentage', at),
          value: this.r.boolean(t, 'value', at),
        },
      };
    }
    this.r.problem(path, 'a rollout needs a segment or a threshold');
    return undefined;
  }

  private segment(value: unknown, parent: string, position: number): DocumentSegment | undefined {
    const fields = this.r.map(value, join(parent, `#${position}`));
    if (fields === undefined) return undefined;
    const key = this.r.string(fields, 'key', join(parent, `#${position}`));
    const path = join(parent, itemStep(key, position));
    this.r.onlyKnown(fields, SEGMENT_FIELDS, path);
    return {
      key,
      name: this.r.string(fields, 'name', path),
      description: this.r.string(fields, 'description', path),
      matchType: this.r.enumName(fields, 'match_type', path, MATCH_TYPES, 'ALL_MATCH_TYPE'),
      constraints: this.r
        .list(fields, 'constraints', path)
        .flatMap((c, i) => this.constraint(c, join(path, `constraints/${i + 1}`)) ?? []),
    };
  }

  private constraint(value: unknown, path: string): DocumentConstraint | undefined {
    const fields = this.r.map(value, path);
    if (fields === undefined) return undefined;
    this.r.onlyKnown(fields, CONSTRAINT_FIELDS, path);
    return {
      type: this.r.enumName(fields, 'type', path, COMPARISON_TYPES, 'UNKNOWN_COMPARISON_TYPE'),
      property: this.r.string(fields, 'property', path),
      operator: this.r.string(fields, 'operator', path),
      value: this.r.string(fields, 'value', path),
      description: this.r.string(fields, 'description', path),
    };
  }
}
