import { envNameOf } from './config';

export interface Listener {
  /** 'HTTP' or 'gRPC'. */
  readonly protocol: string;
  readonly host: string;
  readonly port: number;
  /** The configuration key of the port, e.g. server.http_port. */
  readonly portKey: string;
}

/** Node's code (EADDRINUSE...) of a listen error, also when grpc-js wrapped it in its message. */
function listenCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  const message = err instanceof Error ? err.message : String(err);
  return /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL)\b/.exec(message)?.[1];
}

/**
 * A listener that could not be opened, as one line naming the configuration key to change.
 * Other errors are returned as they are.
 */
export function describeListenError(err: unknown, listener: Listener): Error {
  const { protocol, host, port, portKey } = listener;
  const key = (k: string) => `${k} (${envNameOf(k)}, --${k}=...)`;
  const where = `${protocol} port ${port} on ${host}`;
  switch (listenCode(err)) {
    case 'EADDRINUSE':
      return new Error(
        `${where} is already in use by another process: stop it, or set ${key(portKey)} to a free port`,
      );
    case 'EACCES':
      return new Error(
        `${where} needs privileges this process does not have: set ${key(portKey)} to a port above 1023`,
      );
    case 'EADDRNOTAVAIL':
      return new Error(
        `${where}: the address ${host} is not one of this machine's: set ${key('server.host')}`,
      );
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}
