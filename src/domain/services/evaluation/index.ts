export * from './namespace-snapshots';
export * from './evaluation-service';
export { ChangeLog, VersionReportingUnitOfWork } from './change-log';
