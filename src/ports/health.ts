export type ServingStatus = 'SERVING' | 'NOT_SERVING';

export interface HealthSnapshot {
  readonly status: ServingStatus;
  /** Why the instance is not serving, or a degraded-but-serving note (e.g. stale data). */
  readonly detail?: string;
}

/** The process's readiness, read by HTTP /health and gRPC grpc.health.v1.Health. */
export interface HealthReporter {
  current(): HealthSnapshot;
  /** Calls `listener` on every change; returns an unsubscribe function. */
  subscribe(listener: (snapshot: HealthSnapshot) => void): () => void;
}
