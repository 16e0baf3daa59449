import { createIsolatedDatabase, enabledSqlBackends } from '../support/databases';
import { startVexil, type VexilProcess } from '../support/vexil-process';
import { scaled } from './fault-support';

/*
 * kill -9 in the middle of concurrent writes, on SQLite and PostgreSQL: after a restart on the
 * same database, every write a client saw acknowledged (HTTP 200) is there, creations and
 * updates alike. Writes cut off by the kill may or may not have happened; none is half done
 * (the restarted process reads the whole namespace back without error).
 */

const ROUNDS = scaled(2, 10);
const WRITERS = 16;

jest.setTimeout(scaled(120_000, 900_000));

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function send(vexil: VexilProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(vexil.baseUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

interface Acknowledged {
  /** Flags whose creation was answered 200. */
  readonly created: Set<string>;
  /** Per flag, the highest update counter answered 200 (descriptions are counters). */
  readonly updated: Map<string, number>;
}

/** Writers creating flags and updating their own flags until the process dies under them. */
function writeUntilKilled(vexil: VexilProcess, round: number, acked: Acknowledged) {
  let inFlightAtEnd = 0;
  const loops = Array.from({ length: WRITERS }, async (_, w) => {
    const mine: string[] = [];
    for (let i = 0; ; i += 1) {
      const update = mine.length > 0 && i % 2 === 1;
      const key = update ? (mine[i % mine.length] as string) : `r${round}-w${w}-${i}`;
      const counter = (acked.updated.get(key) ?? 0) + 1;
      try {
        const r = update
          ? await send(vexil, 'PUT', `/api/v1/namespaces/kill/flags/${key}`, {
              name: key,
              description: String(counter),
            })
          : await send(vexil, 'POST', '/api/v1/namespaces/kill/flags', { key, name: key });
        if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
        if (update) acked.updated.set(key, counter);
        else {
          acked.created.add(key);
          mine.push(key);
        }
      } catch {
        inFlightAtEnd += 1;
        return;
      }
    }
  });
  return {
    done: async () => {
      await Promise.all(loops);
      return inFlightAtEnd;
    },
  };
}

const backends = enabledSqlBackends().filter((b) => b.name === 'sqlite' || b.name === 'postgres');

describe.each(backends)('kill -9 during writes on $name', (backend) => {
  it(`loses no acknowledged write over ${ROUNDS} kills`, async () => {
    const db = await createIsolatedDatabase(backend, 'kill');
    const acked: Acknowledged = { created: new Set(), updated: new Map() };
    let vexil = await startVexil({ VEXIL_DB_URL: db.url });
    let cutOff = 0;
    try {
      expect(
        (await send(vexil, 'POST', '/api/v1/namespaces', { key: 'kill', name: 'k' })).status,
      ).toBe(200);
      for (let round = 0; round < ROUNDS; round += 1) {
        const writers = writeUntilKilled(vexil, round, acked);
        await new Promise((r) => setTimeout(r, 300 + Math.random() * 1200));
        vexil.child.kill('SIGKILL');
        await vexil.exited;
        cutOff += await writers.done();

        vexil = await startVexil({ VEXIL_DB_URL: db.url });
        const list = await send(vexil, 'GET', '/api/v1/namespaces/kill/flags');
        expect(list.status).toBe(200);
        const flags = new Map(
          (list.body.flags as Json[]).map((f) => [f.key as string, f.description as string]),
        );
        const missing = [...acked.created].filter((k) => !flags.has(k));
        const behind = [...acked.updated].filter(([k, n]) => Number(flags.get(k) ?? 0) < n);
        expect({ missing, behind }).toEqual({ missing: [], behind: [] });
      }
      console.log(
        `kill -9 on ${backend.name}: ${ROUNDS} kills, ${acked.created.size} acknowledged creations ` +
          `and ${[...acked.updated.values()].reduce((a, b) => a + b, 0)} acknowledged updates, ` +
          `all present after restart (lost 0); ${cutOff} writes cut off by the kills`,
      );
    } finally {
      await vexil.stop();
      await db.drop();
    }
  });
});
