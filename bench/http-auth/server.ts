/*
 * The server of the authentication benchmark: Vexil's HTTP handler and evaluation routes over
 * the in-memory store, with authentication wired through createAuthComponents exactly as the
 * composition root does, either off (BENCH_AUTH=none) or required (BENCH_AUTH=token, the
 * bootstrap token taken from BENCH_TOKEN). Seeds the benchmark flag itself.
 *   node dist/bench/http-auth/server.js   (prints {"message":"listening","port":N})
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthComponents } from '../../src/adapters/auth';
import { createHttpHandler } from '../../src/adapters/http';
import { createEvaluationRoutes } from '../../src/adapters/http/evaluation';
import { InMemoryStore } from '../../src/adapters/storage/memory/in-memory-store';
import { ConfigStore } from '../../src/domain/services/config';
import { MemoryTokenRepository } from '../../src/adapters/storage/memory/memory-token-repository';
import { RandomIdGenerator, SystemClock } from '../../src/adapters/system';
import { createManagementService } from '../../src/domain/services/management-service';
import { EvaluationService, NamespaceSnapshots } from '../../src/domain/services/evaluation';
import type { Logger } from '../../src/ports';

const mode = process.env['BENCH_AUTH'] ?? 'none';
const token = process.env['BENCH_TOKEN'] ?? '';
const flags = Number(process.env['BENCH_FLAGS'] ?? '100');

const quiet: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message, fields) => console.error(JSON.stringify({ message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ message, ...fields })),
};

const flagKey = (i: number): string => `bench-flag-${String(i).padStart(3, '0')}`;

async function main(): Promise<void> {
  const clock = new SystemClock();
  const ids = new RandomIdGenerator();
  const stopwatch = { nowMs: () => performance.now() };
  const store = new InMemoryStore({ clock });
  const snapshots = new NamespaceSnapshots(store, { mode: 'notified', stopwatch });
  const management = createManagementService({
    config: new ConfigStore({ unitOfWork: store.unitOfWork, clock, ids }),
    notifier: { namespaceChanged: (ns) => snapshots.invalidate(ns) },
  });
  const evaluation = new EvaluationService({
    snapshots,
    clock,
    ids,
    stopwatch,
    maxBatchSize: 1000,
  });
  const auth = createAuthComponents({
    required: mode === 'token',
    tokenMethodEnabled: mode === 'token',
    bootstrap: { token, expirationMs: 0 },
    cleanup: { intervalMs: 3_600_000, gracePeriodMs: 1_800_000 },
    repository: new MemoryTokenRepository(),
    clock,
    ids,
    stopwatch,
    logger: quiet,
  });
  await auth.start();

  await management.createSegment({
    namespaceKey: 'default',
    key: 'bench-segment',
    name: 'bench-segment',
    description: '',
    matchType: 'ALL_MATCH_TYPE',
  });
  await management.createConstraint({
    namespaceKey: 'default',
    segmentKey: 'bench-segment',
    type: 'STRING_COMPARISON_TYPE',
    property: 'plan',
    operator: 'eq',
    value: 'enterprise',
    description: '',
  });
  for (let i = 0; i < flags; i++) {
    const key = flagKey(i);
    await management.createFlag({
      namespaceKey: 'default',
      key,
      name: key,
      description: '',
      enabled: false,
      type: 'BOOLEAN_FLAG_TYPE',
    });
    await management.createRollout({
      namespaceKey: 'default',
      flagKey: key,
      rank: 1,
      description: '',
      segment: {
        segmentKey: 'bench-segment',
        segmentKeys: [],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        value: true,
      },
    });
    await management.createRollout({
      namespaceKey: 'default',
      flagKey: key,
      rank: 2,
      description: '',
      threshold: { percentage: 50, value: true },
    });
  }

  const health = {
    current: () => ({ status: 'SERVING' as const }),
    subscribe: () => () => undefined,
  };
  const server = createServer(
    { keepAliveTimeout: 65_000 },
    createHttpHandler({
      management: management,
      health,
      logger: quiet,
      bodyLimitBytes: 4 << 20,
      ids,
      fastRoutes: auth.scopeEvaluationRoutes(createEvaluationRoutes({ evaluation, logger: quiet })),
      routes: auth.httpRoutes,
      guards: auth.httpGuards,
    }),
  );
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    console.log(JSON.stringify({ message: 'listening', port, mode }));
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void auth.stop();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exitCode = 1;
});
