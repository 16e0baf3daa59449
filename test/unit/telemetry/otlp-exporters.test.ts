import {
  grpcUrl,
  protocolForEndpoint,
  tracesUrl,
} from '../../../src/adapters/telemetry/otlp-exporters';

describe('OTLP exporter endpoints', () => {
  it('chooses the protocol from the endpoint as Flipt does when set to auto', () => {
    expect(protocolForEndpoint('http://collector:4318')).toBe('http/protobuf');
    expect(protocolForEndpoint('https://collector')).toBe('http/protobuf');
    expect(protocolForEndpoint('grpc://collector:4317')).toBe('grpc');
    expect(protocolForEndpoint('collector:4317')).toBe('grpc');
  });

  it('posts OTLP/HTTP spans to <endpoint>/v1/traces', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318//')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://c/otlp/v1/traces')).toBe('http://c/otlp/v1/traces');
  });

  it('connects over plain text for grpc:// and bare addresses, TLS for https://', () => {
    expect(grpcUrl('grpc://collector:4317')).toBe('http://collector:4317');
    expect(grpcUrl('collector:4317')).toBe('http://collector:4317');
    expect(grpcUrl('https://collector:4317')).toBe('https://collector:4317');
  });
});
