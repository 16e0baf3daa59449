import type { EvaluationSource } from './evaluation-source';
import type { TokenRepository } from './token-repository';
import type { UnitOfWork } from './unit-of-work';

/** An opened storage adapter: everything the application takes from it. */
export interface Storage {
  readonly unitOfWork: UnitOfWork;
  readonly evaluationSource: EvaluationSource;
  readonly tokens: TokenRepository;
  /** True when other processes may write to the same data (evaluations then check versions). */
  readonly shared: boolean;
  /** Names the store for logs and errors, without secrets. */
  readonly description: string;
  /** Reachability probe for health and start-up. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
