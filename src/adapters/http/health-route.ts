import type { HealthReporter } from '../../ports';
import { GrpcCode } from '../status';
import { HttpError, sendJson } from './http-error';
import type { HttpRoute } from './route-table';

/** Service names /health?service= accepts ("" is the whole server), as the gRPC health server. */
export const HEALTH_SERVICES: readonly string[] = [
  '',
  'flipt.Flipt',
  'flipt.evaluation.EvaluationService',
  'flipt.evaluation.DataService',
  'flipt.auth.AuthenticationService',
  'flipt.auth.AuthenticationMethodTokenService',
  'flipt.meta.MetadataService',
];

/** GET /health: gRPC health bridged to HTTP. Public: never authenticated. */
export function healthRoute(health: HealthReporter): HttpRoute {
  return {
    method: 'GET',
    pattern: '/health',
    public: true,
    handle: ({ res, query }) => {
      const service = query.get('service') ?? '';
      if (!HEALTH_SERVICES.includes(service)) {
        throw new HttpError(GrpcCode.NOT_FOUND, 'unknown service');
      }
      const { status, detail } = health.current();
      // Flipt's shape, plus a detail while degraded (e.g. serving stale snapshots).
      const body = detail === undefined ? { status } : { status, detail };
      sendJson(res, status === 'SERVING' ? 200 : 503, body, true);
    },
  };
}
