export * from './auth-api';
export * from './bootstrap-token';
export * from './metadata-keys';
export * from './namespace-scope';
export * from './timestamps';
export * from './token-cleanup';
export * from './request-scope';
