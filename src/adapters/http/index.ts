export {
  createHttpHandler,
  CORS_PREFLIGHT_ROUTE,
  type HttpDeps,
  type HttpHandler,
} from './http-handler';
export { createCors, type CorsHandler, type CorsOptions } from './cors';
export {
  createExpressApp,
  createRouter,
  runGuards,
  type ExpressAppDeps,
  type ExpressMount,
  type MountTools,
} from './express-app';
export {
  HttpError,
  invalidArgument,
  methodNotAllowed,
  notFoundRoute,
  sendJson,
  writeError,
} from './http-error';
export {
  accessLogEntry,
  logAccessOnFinish,
  requestFinisher,
  type AccessLogEntry,
  type HttpRecorder,
} from './access-log';
export { readBody, bodyTooLarge } from './read-body';
export { parseJsonBody, scanJsonValue } from './parse-json';
export {
  beginRequest,
  requestContext,
  requestIdFor,
  UNMATCHED_ROUTE,
  type RequestContext,
} from './request-context';
export {
  RouteTable,
  splitTarget,
  type HttpExchange,
  type HttpRoute,
  type RequestGuard,
  type RouteMatch,
} from './route-table';
export {
  decodeJsonMessage,
  decodeQueryMessage,
  TYPE_MISMATCH_MESSAGE,
  type FieldSpec,
  type MessageSchema,
} from './proto-json-decoder';
export * from './presenters';
export { HEALTH_SERVICES, healthRoute } from './health-route';
export { createManagementRoutes, type ManagementRoutesDeps } from './management-app';
export { createMetaRoutes, metaInfo, type MetaRoutesDeps } from './meta-routes';
export * from './dashboard';
export { copyFlagRoute } from './copy-flag-route';
