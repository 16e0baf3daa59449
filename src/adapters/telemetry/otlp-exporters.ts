import { Metadata } from '@grpc/grpc-js';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/*
 * Each exporter is loaded when tracing starts with its protocol, not with this module: a
 * process with tracing off (the default) would spend a good part of its start-up loading them.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const grpcExporter = () =>
  (
    require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')
  ).OTLPTraceExporter;
const jsonExporter = () =>
  (
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
  ).OTLPTraceExporter;
const protobufExporter = () =>
  (
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')
  ).OTLPTraceExporter;
/* eslint-enable @typescript-eslint/no-require-imports */

/** OTLP transports, named as OTEL_EXPORTER_OTLP_PROTOCOL names them. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export interface OtlpExporterOptions {
  readonly protocol: OtlpProtocol;
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The official OTLP trace exporter for `protocol`. */
export function createOtlpExporter(options: OtlpExporterOptions): SpanExporter {
  const headers = { ...options.headers };
  switch (options.protocol) {
    case 'grpc': {
      const metadata = new Metadata();
      for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
      const OtlpGrpcExporter = grpcExporter();
      return new OtlpGrpcExporter({ url: grpcUrl(options.endpoint), metadata });
    }
    case 'http/json': {
      const OtlpJsonExporter = jsonExporter();
      return new OtlpJsonExporter({ url: tracesUrl(options.endpoint), headers });
    }
    case 'http/protobuf': {
      const OtlpProtobufExporter = protobufExporter();
      return new OtlpProtobufExporter({ url: tracesUrl(options.endpoint), headers });
    }
  }
}

/** `<endpoint>/v1/traces`, unless the endpoint already names that path. */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

/**
 * The gRPC exporter's URL: `grpc://host:port` (Flipt's spelling) and a bare `host:port` are
 * plain-text connections, as `http://host:port` is; `https://` connects with TLS.
 */
export function grpcUrl(endpoint: string): string {
  if (endpoint.startsWith('grpc://')) return `http://${endpoint.slice('grpc://'.length)}`;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `http://${endpoint}`;
}

/**
 * The protocol Flipt would use for an endpoint (`tracing.otlp.protocol: auto`): OTLP/HTTP for
 * an `http://` or `https://` URL, OTLP/gRPC for `grpc://` or a bare `host:port`.
 */
export function protocolForEndpoint(endpoint: string): OtlpProtocol {
  return /^https?:\/\//i.test(endpoint) ? 'http/protobuf' : 'grpc';
}
