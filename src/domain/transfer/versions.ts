/*
 * Versions of the portable document (Flipt's `flipt import` / `flipt export` format). A
 * document names its version in `version`; a document without one is read as the latest.
 * Fields newer than a document's version are refused, so a file keeps meaning what it meant
 * when it was written.
 */

export const DOCUMENT_VERSIONS = ['1.0', '1.1', '1.2', '1.3', '1.4'] as const;
export type DocumentVersion = (typeof DOCUMENT_VERSIONS)[number];
export const LATEST_DOCUMENT_VERSION: DocumentVersion = '1.4';

/** The version a field first appeared in. */
export const FIELD_VERSIONS = {
  /** flags[].type */
  flagType: '1.1',
  /** flags[].rollouts */
  rollouts: '1.1',
  /** flags[].rules[].rank left out, taken from the rule's position */
  implicitRank: '1.1',
  /** several segments on a rule or rollout: segment.keys, segment.operator */
  segmentKeys: '1.2',
  /** flags[].variants[].default */
  defaultVariant: '1.3',
  /** namespace as a map with name and description */
  namespaceDetails: '1.4',
} as const satisfies Record<string, DocumentVersion>;

const rank = (v: DocumentVersion): number => DOCUMENT_VERSIONS.indexOf(v);

export const versionAtLeast = (v: DocumentVersion, min: DocumentVersion): boolean =>
  rank(v) >= rank(min);

/**
 * The version named by a document's `version` value: "1.2" as text, or 1.2 / 1 when a YAML
 * writer left it unquoted. undefined when it is none of the known versions.
 */
export function parseDocumentVersion(value: unknown): DocumentVersion | undefined {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) {
    text = Number.isInteger(value) ? `${value}.0` : String(value);
  } else return undefined;
  return (DOCUMENT_VERSIONS as readonly string[]).includes(text)
    ? (text as DocumentVersion)
    : undefined;
}
