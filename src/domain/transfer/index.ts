export * from './canonical-json';
export * from './decode-document';
export * from './document';
export * from './encode-document';
export * from './plan-import';
export * from './problems';
export * from './versions';
export * from './materialize';
