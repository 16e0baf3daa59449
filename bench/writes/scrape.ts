/*
 * A Prometheus scrape of the writes benchmark's server once every flag has been evaluated:
 * the per-flag series (Flipt's labels) make the largest /metrics there is. Reports how long
 * the scrape took, its size, and the longest event-loop stall meanwhile.
 */
import { performance } from 'node:perf_hooks';
import { NAMESPACE } from '../scale/seed';
import type { BenchServer } from './server';

export interface Scrape {
  readonly ms: number;
  readonly mb: number;
  readonly lines: number;
  readonly loopMaxMs: number;
}

/** Every flag evaluated once, 100 to a batch. */
async function evaluateAll(server: BenchServer, flags: number): Promise<void> {
  for (let first = 0; first < flags; first += 100) {
    const requests = Array.from({ length: Math.min(100, flags - first) }, (_, i) => ({
      namespaceKey: NAMESPACE,
      flagKey: `flag-${first + i}`,
      entityId: `user-${i}`,
      context: {},
    }));
    const res = await fetch(`http://127.0.0.1:${server.httpPort}/evaluate/v1/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requests }),
    });
    await res.text();
    if (res.status !== 200) throw new Error(`batch evaluation: ${res.status}`);
  }
}

export async function measureScrape(server: BenchServer, flags: number): Promise<Scrape> {
  await evaluateAll(server, flags);
  await server.nextReport();
  server.takeReports();
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/metrics`, {
    headers: { 'accept-encoding': 'identity' },
  });
  const text = await res.text();
  const ms = performance.now() - t;
  // The report that covers the scrape's end.
  await server.nextReport();
  await server.nextReport();
  const loopMaxMs = Math.max(0, ...server.takeReports().map((r) => r.maxDelayMs));
  return { ms, mb: text.length / 1e6, lines: text.split('\n').length, loopMaxMs };
}
