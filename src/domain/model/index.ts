export * from './enums';
export * from './resources';
export * from './requests';
export * from './evaluation';
export * from './explanation';
export * from './changes';
