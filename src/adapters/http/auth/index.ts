export { createAuthRoutes, type AuthRoutesDeps } from './routes';
export { presentAuthentication, presentMethodInfo } from './present';
