import type { Authentication } from '../model';
import type { Clock, IdGenerator, Logger, TokenCrypto, TokenRepository } from '../../ports';
import { TOKEN_DESCRIPTION_KEY, TOKEN_NAME_KEY } from './metadata-keys';
import { addMilliseconds } from './timestamps';

export interface BootstrapTokenOptions {
  /** `authentication.methods.token.bootstrap.token`: use this exact client token. */
  readonly token?: string;
  /** `authentication.methods.token.bootstrap.expiration` in ms; absent or 0: never expires. */
  readonly expirationMs?: number;
  /** `authentication.methods.token.bootstrap.metadata`; keys are lower-cased as Flipt does. */
  readonly metadata?: { readonly [key: string]: string };
}

export interface BootstrapTokenDeps {
  readonly repository: TokenRepository;
  readonly crypto: TokenCrypto;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger?: Logger;
}

export type BootstrapTokenResult =
  | { readonly created: false }
  | {
      readonly created: true;
      readonly authentication: Authentication;
      /** The client token: the configured one, or a generated one the caller may hand out once. */
      readonly clientToken: string;
    };

/**
 * Creates the first TOKEN authentication when none exists (reference §6.4). Safe when several
 * instances start together: the repository inserts only if no TOKEN row exists, atomically.
 *
 * Unlike Flipt, the generated token is not written to the log (tokens appear nowhere but in the
 * create response); operators who need to script the first use configure `bootstrap.token`.
 */
export async function bootstrapToken(
  deps: BootstrapTokenDeps,
  options: BootstrapTokenOptions,
): Promise<BootstrapTokenResult> {
  const { repository, crypto, clock, ids, logger } = deps;
  if (await repository.existsAuthentication('METHOD_TOKEN')) return { created: false };

  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.metadata ?? {})) {
    metadata[key.toLowerCase()] = value;
  }
  metadata[TOKEN_NAME_KEY] = 'initial_bootstrap_token';
  metadata[TOKEN_DESCRIPTION_KEY] = 'Initial token created when bootstrapping authentication';

  const configured = options.token?.trim() ?? '';
  const clientToken = configured !== '' ? configured : crypto.generateToken();
  const now = clock.now();
  const expirationMs = options.expirationMs ?? 0;
  const authentication = await repository.createFirstAuthentication({
    authentication: {
      id: ids.uuid(),
      method: 'METHOD_TOKEN',
      ...(expirationMs > 0 ? { expiresAt: addMilliseconds(now, expirationMs) } : {}),
      createdAt: now,
      updatedAt: now,
      metadata,
    },
    hashedClientToken: crypto.hashToken(clientToken),
  });
  if (authentication === undefined) return { created: false };
  logger?.info('access token created', {
    authentication_id: authentication.id,
    ...(authentication.expiresAt === undefined ? {} : { expires_at: authentication.expiresAt }),
  });
  return { created: true, authentication, clientToken };
}
