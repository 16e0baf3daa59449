export {
  DASHBOARD_DIST_DIR,
  dashboardBuilt,
  dashboardFiles,
  type DashboardFilesOptions,
} from './static-files';
export {
  createCsrfGuard,
  createSessionRoutes,
  csrfTokenFor,
  CSRF_HEADER,
  type SessionRoutesDeps,
} from './session';
