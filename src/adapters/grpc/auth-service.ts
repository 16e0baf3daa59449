import type { AuthApi } from '../../domain/auth/auth-api';
import { AUTH_METHODS, type Authentication, type Timestamp } from '../../domain/model';
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

/** The part of src/domain/auth's AuthApi the gRPC services call. */
export type GrpcAuthApi = Pick<
  AuthApi,
  | 'createToken'
  | 'listAuthentications'
  | 'getAuthentication'
  | 'deleteAuthentication'
  | 'getAuthenticationSelf'
  | 'expireAuthenticationSelf'
  | 'listAuthenticationMethods'
>;

export interface GrpcAuthDeps {
  readonly api: GrpcAuthApi;
  /** `authentication.methods.token.enabled`: registers AuthenticationMethodTokenService. */
  readonly tokenMethodEnabled: boolean;
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

/**
 * flipt.auth services for the token method (the only method Vexil implements). The
 * caller's authentication comes from the server's authenticator (CallContext).
 */
export function createAuthServices(deps: GrpcAuthDeps): GrpcServiceModule[] {
  const { api } = deps;
  const modules: GrpcServiceModule[] = [
    {
      serviceName: SERVICE_NAMES.publicAuth,
      handlers: {
        ListAuthenticationMethods: async () => ({
          methods: api.listAuthenticationMethods().methods.map((m) => ({
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
          presentAuthentication(api.getAuthenticationSelf(ctx.authentication)),
        GetAuthentication: async (m: Msg) =>
          presentAuthentication(await api.getAuthentication(str(m, 'id'))),
        ListAuthentications: async (m: Msg) => {
          const res = await api.listAuthentications({
            method: enumValue(m['method'], AUTH_METHODS, 'Method'),
            limit: num(m, 'limit'),
            pageToken: str(m, 'pageToken'),
          });
          return {
            authentications: res.authentications.map(presentAuthentication),
            nextPageToken: res.nextPageToken,
          };
        },
        DeleteAuthentication: async (m: Msg) => {
          await api.deleteAuthentication(str(m, 'id'));
          return {};
        },
        ExpireAuthenticationSelf: async (m: Msg, ctx: CallContext) => {
          await api.expireAuthenticationSelf(ctx.authentication, {
            expiresAt: timestamp(m, 'expiresAt'),
          });
          return {};
        },
      },
    },
  ];
  if (deps.tokenMethodEnabled) {
    modules.push({
      serviceName: SERVICE_NAMES.tokenAuth,
      handlers: {
        CreateToken: async (m: Msg) => {
          const res = await api.createToken({
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
