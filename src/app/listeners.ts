import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createServer as createPlainServer,
  type RequestListener,
  type Server,
  type ServerOptions,
} from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { ServerCredentials } from '@grpc/grpc-js';
import { ConfigError, type VexilConfig } from './config';

/*
 * The two listeners' transport: plain, or TLS with the certificate and key of
 * `server.cert_file` / `server.cert_key` when `server.protocol` is https (then HTTP listens on
 * `server.https_port`, as Flipt does). Both listeners serve the same certificate.
 */

export type HttpListener = Server | TlsServer;

export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

const reason = (err: unknown): string =>
  (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));

/**
 * The certificate and key when https is configured, read and checked now, so that a missing,
 * unreadable or mismatched file stops start-up with one line naming its key.
 */
export function readTlsFiles(server: VexilConfig['server']): TlsFiles | undefined {
  if (server.protocol !== 'https') return undefined;
  const read = (key: 'cert_file' | 'cert_key'): Buffer => {
    try {
      return readFileSync(server[key]);
    } catch (err) {
      throw new ConfigError(`server.${key}: cannot read ${server[key]}: ${reason(err)}`);
    }
  };
  const cert = read('cert_file');
  const key = read('cert_key');
  try {
    new X509Certificate(cert);
  } catch (err) {
    throw new ConfigError(
      `server.cert_file: ${server.cert_file} is not a PEM certificate (${reason(err)})`,
    );
  }
  try {
    createPrivateKey(key);
  } catch (err) {
    throw new ConfigError(
      `server.cert_key: ${server.cert_key} is not a PEM private key (${reason(err)})`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new ConfigError(
      `server.cert_key: ${server.cert_key} is not the key of server.cert_file ${server.cert_file} (${reason(err)})`,
    );
  }
  return { cert, key };
}

const SERVER_OPTIONS = {
  keepAliveTimeout: 65_000,
  headersTimeout: 66_000,
  requestTimeout: 300_000,
  maxHeaderSize: 1024 * 1024,
};

/**
 * The HTTP listener (HTTPS when `tls` is given), serving every request with `handler`, its
 * requests and responses made with `classes` when given.
 */
export function createHttpListener(
  handler: RequestListener,
  tls: TlsFiles | undefined,
  classes?: Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>,
): HttpListener {
  const options = { ...SERVER_OPTIONS, ...classes };
  if (tls === undefined) return createPlainServer(options, handler);
  return createTlsServer({ ...options, cert: tls.cert, key: tls.key }, handler);
}

/** The port key and number the HTTP listener uses. */
export function httpPortOf(server: VexilConfig['server']): {
  readonly key: string;
  readonly port: number;
} {
  return server.protocol === 'https'
    ? { key: 'server.https_port', port: server.https_port }
    : { key: 'server.http_port', port: server.http_port };
}

/** gRPC credentials: TLS with the same certificate, or plaintext. */
export function grpcCredentials(tls: TlsFiles | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(null, [{ cert_chain: tls.cert, private_key: tls.key }], false);
}

export function listen(server: HttpListener, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
