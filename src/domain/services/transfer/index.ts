export * from './import-summary';
export * from './transfer-service';
