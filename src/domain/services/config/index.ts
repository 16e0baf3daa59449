export * from './config-store';
export type { ConfigContext } from './context';
