import { SERVICE_NAMES } from './proto-definitions';
import type { GrpcServiceModule } from './unary';

export interface GrpcMetaDeps {
  /** The body of GET /meta/info. */
  readonly info: () => Record<string, unknown>;
  /** The body of GET /meta/config. */
  readonly config: () => Record<string, unknown>;
}

const json = (body: Record<string, unknown>) => ({
  contentType: 'application/json',
  data: Buffer.from(JSON.stringify(body)),
  extensions: [],
});

/** flipt.meta.MetadataService: the /meta JSON bodies wrapped in google.api.HttpBody, as Flipt does. */
export function createMetaService(deps: GrpcMetaDeps): GrpcServiceModule {
  return {
    serviceName: SERVICE_NAMES.meta,
    handlers: {
      GetInfo: () => Promise.resolve(json(deps.info())),
      GetConfiguration: () => Promise.resolve(json(deps.config())),
    },
  };
}
