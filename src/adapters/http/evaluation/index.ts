export { createEvaluationRoutes, snapshotEtag, type EvaluationRoutesDeps } from './routes';
