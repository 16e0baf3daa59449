import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import type { Socket } from 'node:net';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Graceful end of an HTTP/1.1 listener without failing a request on a kept-alive connection.
 *
 * A server that closes an idle kept-alive connection races the client's next request on it:
 * a request written as the FIN arrives fails with ECONNRESET, and clients only retry the
 * idempotent ones (never POST /evaluate). So once draining, every response says
 * `Connection: close` and the server ends the connection after writing it: the client is told
 * not to reuse the socket before the socket goes away. Only connections left idle since
 * before the drain are closed from the server's side, and their clients have had the whole
 * drain period to notice that health turned NOT_SERVING.
 */
export class HttpDrain {
  private draining = false;
  private readonly sockets = new Set<Socket>();

  /** The request handler, answering `Connection: close` once draining. */
  wrap(handler: Handler): Handler {
    return (req, res) => {
      if (this.draining) res.shouldKeepAlive = false;
      handler(req, res);
    };
  }

  /** Follows the server's connections (to mark the responses in flight when draining starts). */
  track(server: Server | TlsServer): void {
    const follow = (socket: Socket): void => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    };
    // Over TLS the HTTP exchange runs on the TLS socket ('secureConnection'), not the TCP one.
    server.on('connection', follow);
    server.on('secureConnection', follow);
  }

  /** From now on every response closes its connection, including those in flight. */
  startDraining(): void {
    if (this.draining) return;
    this.draining = true;
    for (const socket of this.sockets) {
      // node:http keeps the response being written for a connection on its socket.
      const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (res && !res.headersSent) res.shouldKeepAlive = false;
    }
  }

  /**
   * Stops accepting, lets in-flight requests finish (each closes its connection after its
   * response), closes idle connections, and after `timeoutMs` cuts whatever is left.
   */
  close(server: Server | TlsServer, timeoutMs: number): Promise<void> {
    this.startDraining();
    return new Promise((resolve) => {
      // Only a response whose headers were written before the drain can leave its connection
      // kept alive and idle; those are closed as they turn idle.
      const sweeper = setInterval(() => server.closeIdleConnections(), 250);
      const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
      timer.unref();
      server.close(() => {
        clearInterval(sweeper);
        clearTimeout(timer);
        resolve();
      });
      server.closeIdleConnections();
    });
  }
}
