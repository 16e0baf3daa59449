/**
 * The Redis key scheme. Namespace keys match Flipt's `^[-_,A-Za-z0-9]+$`, so they never
 * contain the ':' separator.
 */
export const snapshotKey = (prefix: string, namespaceKey: string, version: number): string =>
  `${prefix}snapshot:${namespaceKey}:${version}`;

export const versionKey = (prefix: string, namespaceKey: string): string =>
  `${prefix}version:${namespaceKey}`;

export const changesChannel = (prefix: string): string => `${prefix}changes`;
