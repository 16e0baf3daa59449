import * as grpc from '@grpc/grpc-js';
import type { HealthReporter, HealthSnapshot, Logger } from '../../ports';
import { UNDECODABLE } from './unary';

type WireStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

interface HealthCheckRequest {
  readonly service: string;
}
interface HealthCheckResponse {
  readonly status: WireStatus;
}

type WatchCall = grpc.ServerWritableStream<HealthCheckRequest, HealthCheckResponse>;

/**
 * grpc.health.v1.Health over the process's HealthReporter. The whole server ("") and every
 * registered service share one status: they live and die together in this process.
 */
export class HealthService {
  private readonly watchers = new Set<{ call: WatchCall; unsubscribe: () => void }>();
  private shuttingDown = false;

  constructor(
    private readonly reporter: HealthReporter,
    private readonly serviceNames: readonly string[],
    private readonly logger: Logger,
  ) {}

  readonly implementation: grpc.UntypedServiceImplementation = {
    Check: (
      call: grpc.ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>,
      callback: grpc.sendUnaryData<HealthCheckResponse>,
    ) => {
      if ((call.request as unknown) === UNDECODABLE) {
        callback({
          code: grpc.status.INVALID_ARGUMENT,
          details: 'request message could not be decoded',
        });
        return;
      }
      const service = call.request.service;
      if (!this.knows(service)) {
        callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        return;
      }
      callback(null, { status: this.statusNow() });
    },

    Watch: (call: WatchCall) => {
      if ((call.request as unknown) === UNDECODABLE) {
        call.emit('error', {
          code: grpc.status.INVALID_ARGUMENT,
          details: 'request message could not be decoded',
        });
        return;
      }
      const service = call.request.service;
      if (this.shuttingDown) {
        call.write({ status: 'NOT_SERVING' });
        call.end();
        return;
      }
      if (!this.knows(service)) {
        // As grpc-go: tell the watcher, keep the stream open (the set of services is fixed
        // for this server's life, so nothing more will follow until it ends).
        call.write({ status: 'SERVICE_UNKNOWN' });
        const entry = { call, unsubscribe: () => undefined };
        this.track(entry);
        return;
      }
      let last = this.statusNow();
      call.write({ status: last });
      const unsubscribe = this.reporter.subscribe((snapshot) => {
        const next = wireStatus(snapshot);
        if (next === last) return;
        last = next;
        call.write({ status: next });
      });
      this.track({ call, unsubscribe });
    },
  };

  /** Tells every watcher NOT_SERVING and closes its stream, so a graceful shutdown can end. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const entry of [...this.watchers]) {
      entry.unsubscribe();
      this.watchers.delete(entry);
      try {
        entry.call.write({ status: 'NOT_SERVING' });
        entry.call.end();
      } catch (err) {
        this.logger.debug('health watch stream already closed', { error: String(err) });
      }
    }
  }

  private track(entry: { call: WatchCall; unsubscribe: () => void }): void {
    this.watchers.add(entry);
    const done = (): void => {
      entry.unsubscribe();
      this.watchers.delete(entry);
    };
    entry.call.on('cancelled', done);
    entry.call.on('close', done);
    entry.call.on('error', done);
  }

  private knows(service: string): boolean {
    return service === '' || this.serviceNames.includes(service);
  }

  private statusNow(): WireStatus {
    return this.shuttingDown ? 'NOT_SERVING' : wireStatus(this.reporter.current());
  }
}

function wireStatus(snapshot: HealthSnapshot): WireStatus {
  return snapshot.status === 'SERVING' ? 'SERVING' : 'NOT_SERVING';
}
