import type { ChangedKeys, Timestamp } from '../domain/model';

export interface Clock {
  /** Now, as an RFC 3339 UTC timestamp with six fractional digits. */
  now(): Timestamp;
}

export interface IdGenerator {
  /** A random UUID v4, lower-case and hyphenated. */
  uuid(): string;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Told after a write to a namespace commits. */
export interface ChangeNotifier {
  /**
   * The write answers its caller once the returned promise settles (for instance when what
   * evaluations are served from includes it); it should not reject.
   */
  namespaceChanged(namespaceKey: string): void | Promise<void>;
  /**
   * Told before a write that will touch only `touched` of the namespace starts; the returned
   * function is called when it has ended, committed or not. Lets the listener pair each
   * committed version with what it changed.
   */
  writing?(namespaceKey: string, touched: ChangedKeys): () => void;
}

/** A monotonic clock for measuring durations (milliseconds, fractional). */
export interface Stopwatch {
  nowMs(): number;
}
