import { sendJson } from './http-error';
import type { HttpRoute } from './route-table';

export interface MetaRoutesDeps {
  readonly version: string;
  readonly authenticationRequired: boolean;
  readonly readOnly: boolean;
  /** The effective configuration without its secrets (camelCase keys, as Flipt's JSON tags). */
  readonly config: () => Record<string, unknown>;
}

/**
 * Flipt's MetadataService over REST: raw JSON bodies, keys with zero values left out as Go's
 * omitempty does. Authenticated like the rest of the API when authentication is required
 * (a namespace-scoped token is refused, as in Flipt).
 */
export function createMetaRoutes(deps: MetaRoutesDeps): HttpRoute[] {
  return [
    {
      method: 'GET',
      pattern: '/meta/info',
      handle: ({ res }) => sendJson(res, 200, metaInfo(deps)),
    },
    {
      method: 'GET',
      pattern: '/meta/config',
      handle: ({ res }) => sendJson(res, 200, deps.config()),
    },
  ];
}

export function metaInfo(deps: Omit<MetaRoutesDeps, 'config'>): Record<string, unknown> {
  return {
    version: deps.version,
    updateAvailable: false,
    isRelease: !deps.version.includes('-'),
    os: process.platform,
    arch: process.arch,
    authentication: { required: deps.authenticationRequired },
    storage: { type: 'database', ...(deps.readOnly ? { readOnly: true } : {}) },
  };
}
