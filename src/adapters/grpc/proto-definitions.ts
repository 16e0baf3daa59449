import * as path from 'path';
import * as protoLoader from '@grpc/proto-loader';

/**
 * The .proto files live next to this module (copied beside the compiled output by
 * scripts/copy-assets.js), so resolving them from __dirname works from src/ under ts-jest
 * and from dist/ in production alike.
 */
export const PROTO_DIR = path.join(__dirname, 'proto');

export const PROTO_FILES = [
  'flipt.proto',
  'evaluation.proto',
  'auth.proto',
  'health.proto',
  'meta.proto',
] as const;

/**
 * keepCase false: messages are handled with lowerCamelCase field names, the same names the
 * domain model and Flipt's JSON use, so requests map onto ManagementApi almost field for field.
 * defaults true: every scalar field is present with its zero value, as the ManagementApi
 * contract requires. Fields with explicit presence (`optional`, oneof members) stay undefined
 * when absent.
 */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  enums: String,
  longs: Number,
  defaults: true,
  oneofs: true,
  // The well-known types (Timestamp, Empty, Struct) come from protobufjs's bundled copies,
  // which proto-loader resolves on its own; only our directory needs adding.
  includeDirs: [PROTO_DIR],
};

let cached: protoLoader.PackageDefinition | undefined;

/** One package definition with every Vexil service; parsed once per process. */
export function loadProtoDefinitions(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync([...PROTO_FILES], PROTO_LOADER_OPTIONS);
  return cached;
}

/** Fully-qualified service names. */
export const SERVICE_NAMES = {
  flipt: 'flipt.Flipt',
  evaluation: 'flipt.evaluation.EvaluationService',
  data: 'flipt.evaluation.DataService',
  publicAuth: 'flipt.auth.PublicAuthenticationService',
  auth: 'flipt.auth.AuthenticationService',
  tokenAuth: 'flipt.auth.AuthenticationMethodTokenService',
  oidcAuth: 'flipt.auth.AuthenticationMethodOIDCService',
  kubernetesAuth: 'flipt.auth.AuthenticationMethodKubernetesService',
  githubAuth: 'flipt.auth.AuthenticationMethodGithubService',
  health: 'grpc.health.v1.Health',
  meta: 'flipt.meta.MetadataService',
} as const;

/** The service definition (method table) of one fully-qualified service. */
export function serviceDefinition(name: string): protoLoader.ServiceDefinition {
  const def = loadProtoDefinitions()[name];
  if (!def || !isServiceDefinition(def)) {
    throw new Error(`no gRPC service ${name} in the loaded protos`);
  }
  return def;
}

function isServiceDefinition(def: protoLoader.AnyDefinition): def is protoLoader.ServiceDefinition {
  return !('format' in def && typeof def.format === 'string');
}
