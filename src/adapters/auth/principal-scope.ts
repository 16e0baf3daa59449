import { AsyncLocalStorage } from 'node:async_hooks';
import type { Authentication } from '../../domain/model';

/** The caller of one request, filled in once its credential has been checked. */
export interface PrincipalSlot {
  authentication: Authentication | undefined;
}

/**
 * Carries the authenticated caller from the transport's authentication step to the use-case
 * decorators (namespace scoping), which only see the decoded request.
 *
 * gRPC wraps the handler with `run`. The HTTP guard cannot wrap the handler (it runs before it
 * and returns), so it calls `enter` synchronously, before its first await: that binds a fresh
 * slot to the current asynchronous context, which the handler chain that follows inherits.
 * Each request gets its own slot, so a slot left bound to a keep-alive socket's context can
 * only be seen by a later request that runs no guard, i.e. a public route, which calls no
 * decorated use case; and a decorated call that finds no caller is refused.
 */
export class PrincipalScope {
  private readonly storage = new AsyncLocalStorage<PrincipalSlot>();

  /** Binds a new empty slot to the current context; fill it once the caller is known. */
  enter(): PrincipalSlot {
    const slot: PrincipalSlot = { authentication: undefined };
    this.storage.enterWith(slot);
    return slot;
  }

  /** Runs `fn` with `authentication` as the caller. */
  run<T>(authentication: Authentication | undefined, fn: () => T): T {
    return this.storage.run({ authentication }, fn);
  }

  /** The caller of the request being handled, if one was authenticated. */
  current(): Authentication | undefined {
    return this.storage.getStore()?.authentication;
  }
}
