import type { NamespaceData, NamespaceRows } from '../domain/model';

/** What the evaluation side reads: the version (cheap, often) and the whole namespace (rare). */
export interface EvaluationSource {
  /** The namespace's current version, or undefined when the namespace does not exist. */
  getNamespaceVersion(namespaceKey: string): Promise<number | undefined>;
  /** Everything of one namespace, read consistently; undefined when it does not exist. */
  loadNamespace(namespaceKey: string): Promise<NamespaceData | undefined>;
  /**
   * The current rows of the given flags and segments with the namespace's version, read in
   * one transaction; undefined when the namespace does not exist. Optional: without it, every
   * change reloads the whole namespace.
   */
  loadRows?(
    namespaceKey: string,
    keys: { readonly flags: readonly string[]; readonly segments: readonly string[] },
  ): Promise<NamespaceRows | undefined>;
  /**
   * The current rows of the given flags (variants, rules with distributions, rollouts), of
   * every segment their rules and rollouts use (with constraints) and the namespace's version,
   * read in one transaction; undefined when the namespace does not exist. What an evaluation
   * of just these flags needs while the whole namespace is still loading. Optional: without
   * it, the first evaluation of a namespace waits for the whole namespace.
   */
  loadFlags?(namespaceKey: string, flagKeys: readonly string[]): Promise<NamespaceRows | undefined>;
}
