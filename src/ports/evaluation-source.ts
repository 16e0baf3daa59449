import type { NamespaceData } from '../domain/model';

/** What the evaluation side reads: the version (cheap, often) and the whole namespace (rare). */
export interface EvaluationSource {
  /** The namespace's current version, or undefined when the namespace does not exist. */
  getNamespaceVersion(namespaceKey: string): Promise<number | undefined>;
  /** Everything of one namespace, read consistently; undefined when it does not exist. */
  loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined>;
}
