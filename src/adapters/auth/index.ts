export * from './authenticator';
export * from './credential-extractor';
export * from './lookup-cache';
export * from './node-token-crypto';
export * from './token-cleanup-job';
export * from './transport-guards';
export * from './wiring';
