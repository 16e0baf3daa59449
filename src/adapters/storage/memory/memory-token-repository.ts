import { toEpochMicros } from '../../../domain/auth';
import { InvalidArgumentError } from '../../../domain/errors';
import type { AuthMethod, Authentication, Timestamp } from '../../../domain/model';
import type {
  AuthenticationListQuery,
  LockAttempt,
  NewAuthentication,
  TokenRepository,
} from '../../../ports';

interface Row {
  readonly authentication: Authentication;
  readonly hashedClientToken: string;
}

interface Lease {
  version: number;
  lastAcquiredAt: Timestamp;
  acquiredUntil: Timestamp;
}

const micros = (ts: Timestamp): number => toEpochMicros(ts) ?? Number.NaN;

const copy = (a: Authentication): Authentication => ({ ...a, metadata: { ...a.metadata } });

/**
 * TokenRepository over Maps, for tests and for running without a database. One process, one
 * event loop: every method's body runs without interleaving, which makes the conditional
 * operations atomic.
 */
export class MemoryTokenRepository implements TokenRepository {
  private readonly byId = new Map<string, Row>();
  private readonly idByHash = new Map<string, string>();
  private readonly leases = new Map<string, Lease>();

  async createAuthentication(input: NewAuthentication): Promise<Authentication> {
    if (this.idByHash.has(input.hashedClientToken) || this.byId.has(input.authentication.id)) {
      throw new InvalidArgumentError('authentication is not unique');
    }
    return this.insert(input);
  }

  async createFirstAuthentication(input: NewAuthentication): Promise<Authentication | undefined> {
    if (this.idByHash.has(input.hashedClientToken)) return undefined;
    if (this.hasMethod(input.authentication.method)) return undefined;
    return this.insert(input);
  }

  async getAuthenticationByHashedToken(hash: string): Promise<Authentication | undefined> {
    const id = this.idByHash.get(hash);
    const row = id === undefined ? undefined : this.byId.get(id);
    return row === undefined ? undefined : copy(row.authentication);
  }

  async getAuthentication(id: string): Promise<Authentication | undefined> {
    const row = this.byId.get(id);
    return row === undefined ? undefined : copy(row.authentication);
  }

  async listAuthentications(query: AuthenticationListQuery): Promise<Authentication[]> {
    return [...this.byId.values()]
      .map((row) => row.authentication)
      .filter((a) => query.method === undefined || a.method === query.method)
      .sort(
        (a, b) =>
          micros(a.createdAt) - micros(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      )
      .slice(query.offset, query.offset + query.limit)
      .map(copy);
  }

  async deleteAuthentication(id: string): Promise<boolean> {
    const row = this.byId.get(id);
    if (row === undefined) return false;
    this.byId.delete(id);
    this.idByHash.delete(row.hashedClientToken);
    return true;
  }

  async expireAuthentication(
    id: string,
    expiresAt: Timestamp,
    updatedAt: Timestamp,
  ): Promise<boolean> {
    const row = this.byId.get(id);
    if (row === undefined) return false;
    this.byId.set(id, {
      ...row,
      authentication: { ...row.authentication, expiresAt, updatedAt },
    });
    return true;
  }

  async existsAuthentication(method: AuthMethod): Promise<boolean> {
    return this.hasMethod(method);
  }

  async deleteExpiredAuthentications(method: AuthMethod, before: Timestamp): Promise<number> {
    const limit = micros(before);
    let count = 0;
    for (const [id, row] of this.byId) {
      const { expiresAt } = row.authentication;
      if (row.authentication.method !== method || expiresAt === undefined) continue;
      if (micros(expiresAt) < limit) {
        this.byId.delete(id);
        this.idByHash.delete(row.hashedClientToken);
        count += 1;
      }
    }
    return count;
  }

  async tryAcquireLock(operation: string, now: Timestamp, until: Timestamp): Promise<LockAttempt> {
    const lease = this.leases.get(operation);
    if (lease !== undefined && !(micros(lease.acquiredUntil) < micros(now))) {
      return { acquired: false, acquiredUntil: lease.acquiredUntil };
    }
    this.leases.set(operation, {
      version: (lease?.version ?? 0) + 1,
      lastAcquiredAt: now,
      acquiredUntil: until,
    });
    return { acquired: true, acquiredUntil: until };
  }

  /** Every stored row as held in memory (for tests that inspect what is at rest). */
  dump(): unknown {
    return {
      authentications: [...this.byId.values()],
      operationLock: Object.fromEntries(this.leases),
    };
  }

  private hasMethod(method: AuthMethod): boolean {
    for (const row of this.byId.values()) {
      if (row.authentication.method === method) return true;
    }
    return false;
  }

  private insert(input: NewAuthentication): Authentication {
    const authentication = copy(input.authentication);
    this.byId.set(authentication.id, {
      authentication,
      hashedClientToken: input.hashedClientToken,
    });
    this.idByHash.set(input.hashedClientToken, authentication.id);
    return copy(authentication);
  }
}
