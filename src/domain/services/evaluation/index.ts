export * from './namespace-snapshots';
export * from './evaluation-service';
