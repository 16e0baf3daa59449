import type { HealthReporter, HealthSnapshot, ServingStatus } from '../ports';

export class HealthState implements HealthReporter {
  private snapshot: HealthSnapshot;
  private readonly listeners = new Set<(s: HealthSnapshot) => void>();

  constructor(status: ServingStatus, detail?: string) {
    this.snapshot = detail === undefined ? { status } : { status, detail };
  }

  current(): HealthSnapshot {
    return this.snapshot;
  }

  set(status: ServingStatus, detail?: string): void {
    const next: HealthSnapshot = detail === undefined ? { status } : { status, detail };
    if (next.status === this.snapshot.status && next.detail === this.snapshot.detail) return;
    this.snapshot = next;
    for (const listener of this.listeners) listener(next);
  }

  subscribe(listener: (s: HealthSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
