import type { HealthReporter, HealthSnapshot, ServingStatus } from '../ports';

/** A detail fixed when set, or read anew on every look (e.g. how long an outage has lasted). */
export type HealthDetail = string | (() => string | undefined);

export class HealthState implements HealthReporter {
  private status: ServingStatus;
  private detail: HealthDetail | undefined;
  private readonly listeners = new Set<(s: HealthSnapshot) => void>();
  private final = false;

  constructor(status: ServingStatus, detail?: HealthDetail) {
    this.status = status;
    this.detail = detail;
  }

  current(): HealthSnapshot {
    const detail = typeof this.detail === 'function' ? this.detail() : this.detail;
    return detail === undefined ? { status: this.status } : { status: this.status, detail };
  }

  set(status: ServingStatus, detail?: HealthDetail): void {
    if (this.final || (status === this.status && detail === this.detail)) return;
    this.status = status;
    this.detail = detail;
    const next = this.current();
    for (const listener of this.listeners) listener(next);
  }

  /**
   * NOT_SERVING for good: a shutting-down process must not turn SERVING again when start-up
   * or a database reconnection completes during its drain.
   */
  shutDown(detail: string): void {
    this.set('NOT_SERVING', detail);
    this.final = true;
  }

  subscribe(listener: (s: HealthSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
