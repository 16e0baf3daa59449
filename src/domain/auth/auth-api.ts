import { InvalidArgumentError, NotFoundError, UnauthenticatedError } from '../errors';
import type {
  AuthMethod,
  Authentication,
  CreateTokenRequest,
  JsonObject,
  ListAuthenticationsRequest,
  Timestamp,
} from '../model';
import type { Clock, IdGenerator, Logger, TokenCrypto, TokenRepository } from '../../ports';
import { TOKEN_DESCRIPTION_KEY, TOKEN_NAMESPACE_KEY, TOKEN_NAME_KEY } from './metadata-keys';
import { normalizeTimestamp } from './timestamps';

/** Flipt's page size for the token list when none is given, and its ceiling. */
export const DEFAULT_AUTHENTICATIONS_LIMIT = 25;
export const MAX_AUTHENTICATIONS_LIMIT = 100;

export interface CreateTokenResponse {
  /** The plain client token; shown here once and never again. */
  readonly clientToken: string;
  readonly authentication: Authentication;
}

export interface ListAuthenticationsResponse {
  readonly authentications: readonly Authentication[];
  /** The decimal offset of the next page, "" on the last page. */
  readonly nextPageToken: string;
}

export interface ExpireAuthenticationSelfRequest {
  /** Absent: now. */
  readonly expiresAt?: Timestamp;
}

export interface AuthMethodInfo {
  readonly method: AuthMethod;
  readonly enabled: boolean;
  readonly sessionCompatible: boolean;
  readonly metadata?: JsonObject;
}

export interface ListAuthenticationMethodsResponse {
  readonly methods: readonly AuthMethodInfo[];
}

/** Called with an authentication id after it was deleted or its expiry changed. */
export type AuthenticationChangeListener = (id: string) => void;

export interface AuthApiOptions {
  readonly repository: TokenRepository;
  readonly crypto: TokenCrypto;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger?: Logger;
  /** `authentication.methods.token.enabled`. */
  readonly tokenMethodEnabled: boolean;
  /** Lets the local lookup cache forget a token at once instead of after its TTL. */
  readonly onAuthenticationChanged?: AuthenticationChangeListener;
}

// Flipt lists its methods in this order, enabled or not (reference §1.12).
const METHOD_ORDER: ReadonlyArray<{ method: AuthMethod; sessionCompatible: boolean }> = [
  { method: 'METHOD_TOKEN', sessionCompatible: false },
  { method: 'METHOD_GITHUB', sessionCompatible: true },
  { method: 'METHOD_OIDC', sessionCompatible: true },
  { method: 'METHOD_KUBERNETES', sessionCompatible: false },
  { method: 'METHOD_JWT', sessionCompatible: false },
];

/**
 * The `flipt.auth` use cases behind /auth/v1 and the gRPC auth services. Transports pass plain
 * requests (zero values for absent fields) and the caller's authentication where there is one.
 */
export class AuthApi {
  constructor(private readonly options: AuthApiOptions) {}

  /** AuthenticationMethodTokenService.CreateToken; route it only when the token method is enabled. */
  async createToken(req: CreateTokenRequest): Promise<CreateTokenResponse> {
    const { repository, crypto, clock, ids, logger } = this.options;
    let expiresAt: Timestamp | undefined;
    if (req.expiresAt !== undefined && req.expiresAt !== '') {
      expiresAt = normalizeTimestamp(req.expiresAt);
      if (expiresAt === undefined) throw new InvalidArgumentError('invalid expiresAt');
    }
    const metadata: Record<string, string> = { ...req.metadata, [TOKEN_NAME_KEY]: req.name };
    if (req.description !== '') metadata[TOKEN_DESCRIPTION_KEY] = req.description;
    if (req.namespaceKey !== '') metadata[TOKEN_NAMESPACE_KEY] = req.namespaceKey;
    const now = clock.now();
    const clientToken = crypto.generateToken();
    const authentication = await repository.createAuthentication({
      authentication: {
        id: ids.uuid(),
        method: 'METHOD_TOKEN',
        ...(expiresAt === undefined ? {} : { expiresAt }),
        createdAt: now,
        updatedAt: now,
        metadata,
      },
      hashedClientToken: crypto.hashToken(clientToken),
    });
    logger?.info('token created', { authentication_id: authentication.id });
    return { clientToken, authentication };
  }

  /** AuthenticationService.ListAuthentications, with Flipt's decimal-offset page tokens. */
  async listAuthentications(req: ListAuthenticationsRequest): Promise<ListAuthenticationsResponse> {
    const limit = pageLimit(req.limit);
    const offset = pageOffset(req.pageToken);
    const rows = await this.options.repository.listAuthentications({
      ...(req.method === 'METHOD_NONE' ? {} : { method: req.method }),
      offset,
      limit: limit + 1,
    });
    if (rows.length > limit) {
      return { authentications: rows.slice(0, limit), nextPageToken: String(offset + limit) };
    }
    return { authentications: rows, nextPageToken: '' };
  }

  /** AuthenticationService.GetAuthentication. */
  async getAuthentication(id: string): Promise<Authentication> {
    const found = await this.options.repository.getAuthentication(id);
    if (found === undefined) {
      throw new NotFoundError(
        'getting authentication by token: reading authentication: resource not found',
      );
    }
    return found;
  }

  /** AuthenticationService.DeleteAuthentication; an unknown id is not an error (Flipt). */
  async deleteAuthentication(id: string): Promise<void> {
    const deleted = await this.options.repository.deleteAuthentication(id);
    this.options.onAuthenticationChanged?.(id);
    if (deleted) this.options.logger?.info('token deleted', { authentication_id: id });
  }

  /** AuthenticationService.GetAuthenticationSelf: the caller's own authentication. */
  getAuthenticationSelf(caller: Authentication | undefined): Authentication {
    if (caller === undefined) throw new UnauthenticatedError();
    return caller;
  }

  /** AuthenticationService.ExpireAuthenticationSelf: sets the caller's expiry (default now). */
  async expireAuthenticationSelf(
    caller: Authentication | undefined,
    req: ExpireAuthenticationSelfRequest,
  ): Promise<void> {
    if (caller === undefined) throw new UnauthenticatedError();
    const now = this.options.clock.now();
    let expiresAt = now;
    if (req.expiresAt !== undefined && req.expiresAt !== '') {
      const normalized = normalizeTimestamp(req.expiresAt);
      if (normalized === undefined) throw new InvalidArgumentError('invalid expiresAt');
      expiresAt = normalized;
    }
    if (caller.id === '') return;
    await this.options.repository.expireAuthentication(caller.id, expiresAt, now);
    this.options.onAuthenticationChanged?.(caller.id);
  }

  /** PublicAuthenticationService.ListAuthenticationMethods. */
  listAuthenticationMethods(): ListAuthenticationMethodsResponse {
    return {
      methods: METHOD_ORDER.map(({ method, sessionCompatible }) => ({
        method,
        enabled: method === 'METHOD_TOKEN' && this.options.tokenMethodEnabled,
        sessionCompatible,
      })),
    };
  }
}

/** 0 ⇒ 25; above 100 ⇒ 100. A negative int32 becomes a huge uint64 in Flipt, hence 100. */
export function pageLimit(limit: number): number {
  if (limit === 0 || !Number.isFinite(limit)) return DEFAULT_AUTHENTICATIONS_LIMIT;
  if (limit < 0 || limit > MAX_AUTHENTICATIONS_LIMIT) return MAX_AUTHENTICATIONS_LIMIT;
  return Math.floor(limit);
}

/** A decimal offset; anything Go's ParseUint refuses is silently offset 0. */
export function pageOffset(pageToken: string): number {
  if (!/^\d+$/.test(pageToken)) return 0;
  const offset = Number(pageToken);
  return Number.isSafeInteger(offset) ? offset : 0;
}
