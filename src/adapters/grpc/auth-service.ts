import { UnauthenticatedError } from '../../domain/errors';
import {
  AUTH_METHODS,
  type AuthMethod,
  type Authentication,
  type CreateTokenRequest,
  type JsonObject,
  type ListAuthenticationsRequest,
  type Timestamp,
} from '../../domain/model';
import { SERVICE_NAMES } from './proto-definitions';
import type { CallContext, GrpcServiceModule } from './unary';
import {
  enumValue,
  fromTimestampMessage,
  toOptionalTimestampMessage,
  toStructMessage,
  toTimestampMessage,
  type TimestampMessage,
} from './wire-types';

export interface AuthMethodInfo {
  readonly method: AuthMethod;
  readonly enabled: boolean;
  readonly sessionCompatible: boolean;
  readonly metadata?: JsonObject;
}

/** What the authentication use cases offer the transports. */
export interface AuthApi {
  listAuthenticationMethods(): Promise<readonly AuthMethodInfo[]>;
  getAuthentication(id: string): Promise<Authentication>;
  listAuthentications(req: ListAuthenticationsRequest): Promise<{
    readonly items: readonly Authentication[];
    readonly nextPageToken: string;
  }>;
  deleteAuthentication(id: string): Promise<void>;
  /** `expiresAt` undefined: now. */
  expireAuthentication(id: string, expiresAt: Timestamp | undefined): Promise<void>;
}

export interface TokenApi {
  createToken(
    req: CreateTokenRequest,
  ): Promise<{ readonly clientToken: string; readonly authentication: Authentication }>;
}

export interface GrpcAuthDeps {
  readonly api: AuthApi;
  /** AuthenticationMethodTokenService is registered only when the token method is enabled. */
  readonly token?: TokenApi;
}

type Msg = Readonly<Record<string, unknown>>;
const str = (m: Msg, f: string): string => (typeof m[f] === 'string' ? (m[f] as string) : '');
const num = (m: Msg, f: string): number => (typeof m[f] === 'number' ? (m[f] as number) : 0);
const timestamp = (m: Msg, f: string): Timestamp | undefined => {
  const v = m[f];
  return v && typeof v === 'object' ? fromTimestampMessage(v as TimestampMessage) : undefined;
};
const stringMap = (m: Msg, f: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const v = m[f];
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  }
  return out;
};

export function presentAuthentication(a: Authentication) {
  return {
    id: a.id,
    method: a.method,
    expiresAt: toOptionalTimestampMessage(a.expiresAt),
    createdAt: toTimestampMessage(a.createdAt),
    updatedAt: toTimestampMessage(a.updatedAt),
    metadata: { ...a.metadata },
  };
}

function self(ctx: CallContext): Authentication {
  if (!ctx.authentication) throw new UnauthenticatedError();
  return ctx.authentication;
}

/** flipt.auth services for the token method (the only method Vexil implements). */
export function createAuthServices(deps: GrpcAuthDeps): GrpcServiceModule[] {
  const { api, token } = deps;
  const modules: GrpcServiceModule[] = [
    {
      serviceName: SERVICE_NAMES.publicAuth,
      handlers: {
        ListAuthenticationMethods: async () => ({
          methods: (await api.listAuthenticationMethods()).map((m) => ({
            method: m.method,
            enabled: m.enabled,
            sessionCompatible: m.sessionCompatible,
            metadata: m.metadata ? toStructMessage(m.metadata) : undefined,
          })),
        }),
      },
    },
    {
      serviceName: SERVICE_NAMES.auth,
      handlers: {
        GetAuthenticationSelf: async (_m: Msg, ctx: CallContext) =>
          presentAuthentication(self(ctx)),
        GetAuthentication: async (m: Msg) =>
          presentAuthentication(await api.getAuthentication(str(m, 'id'))),
        ListAuthentications: async (m: Msg) => {
          const page = await api.listAuthentications({
            method: enumValue(m['method'], AUTH_METHODS, 'Method'),
            limit: num(m, 'limit'),
            pageToken: str(m, 'pageToken'),
          });
          return {
            authentications: page.items.map(presentAuthentication),
            nextPageToken: page.nextPageToken,
          };
        },
        DeleteAuthentication: async (m: Msg) => {
          await api.deleteAuthentication(str(m, 'id'));
          return {};
        },
        ExpireAuthenticationSelf: async (m: Msg, ctx: CallContext) => {
          await api.expireAuthentication(self(ctx).id, timestamp(m, 'expiresAt'));
          return {};
        },
      },
    },
  ];
  if (token) {
    modules.push({
      serviceName: SERVICE_NAMES.tokenAuth,
      handlers: {
        CreateToken: async (m: Msg) => {
          const res = await token.createToken({
            name: str(m, 'name'),
            description: str(m, 'description'),
            expiresAt: timestamp(m, 'expiresAt'),
            namespaceKey: str(m, 'namespaceKey'),
            metadata: stringMap(m, 'metadata'),
          });
          return {
            clientToken: res.clientToken,
            authentication: presentAuthentication(res.authentication),
          };
        },
      },
    });
  }
  return modules;
}
