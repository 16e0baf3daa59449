import { context, SpanKind, type Attributes } from '@opentelemetry/api';
import {
  activeTracerOrUndefined,
  ATTR_FLIPT_FLAG,
  ATTR_FLIPT_FLAG_ENABLED,
  ATTR_FLIPT_MATCH,
  ATTR_FLIPT_NAMESPACE,
  ATTR_FLIPT_REASON,
  ATTR_FLIPT_VARIANT,
  endSpan,
  insideRecordedSpan,
  isPromiseLike,
  tracingActive,
  withChildSpan,
} from './tracing';

export interface TraceMethodsOptions {
  /** Added to every span (e.g. `{ 'db.system': 'postgresql' }`). */
  readonly attributes?: Attributes;
  /** Attributes from the result (resolved, when it is a promise), e.g. the evaluation outcome. */
  readonly resultAttributes?: (result: unknown) => Attributes;
  /**
   * Synchronous methods that may decline, returning undefined without doing anything (a
   * fast path the caller tries first), by the span name (after the prefix) to record when
   * they do answer, e.g. `{ booleanCached: 'boolean' }`. A call that declines leaves no span.
   */
  readonly fastPaths?: Readonly<Record<string, string>>;
}

/**
 * Wraps every method of `target` (a repository, the evaluation service) so each call made
 * inside a traced request runs in a child span named `<prefix>.<method>`, with the namespace
 * and flag keys of its arguments (see keyAttributesFor); other calls go straight to the
 * method. Returns `target` itself when tracing is off, so the disabled path costs nothing per
 * call. Call it after `startTracing`.
 *
 * The wrapper is an object whose prototype is `target`, holding one wrapped function per
 * method: reading a method is a plain property read (no proxy trap on every call), and
 * anything else reads through to `target`. Methods run with `target` as `this`.
 */
export function traceMethods<T extends object>(
  target: T,
  prefix: string,
  options: TraceMethodsOptions = {},
): T {
  if (!tracingActive()) return target;
  const { attributes: fixed, resultAttributes } = options;
  const wrapper = Object.create(target) as Record<string, unknown>;
  for (const property of methodNames(target)) {
    const method = (target as Record<string, unknown>)[property] as (...args: unknown[]) => unknown;
    const fastPath = options.fastPaths?.[property];
    const name = `${prefix}.${fastPath ?? property}`;
    const keysOf = keyAttributesFor(property);
    const attributesOf = (args: unknown[]): Attributes =>
      fixed === undefined ? keysOf(args) : { ...fixed, ...keysOf(args) };
    /** The call made inside a recorded span: in a child span, or a fast path's record. */
    const traced = (...args: unknown[]): unknown => {
      if (fastPath !== undefined) {
        return recordAnswered(name, attributesOf(args), resultAttributes, () =>
          method.apply(target, args),
        );
      }
      return withChildSpan(
        name,
        () => attributesOf(args),
        (span) => {
          const result = method.apply(target, args);
          if (resultAttributes === undefined) return result;
          if (!isPromiseLike(result)) {
            span.setAttributes(resultAttributes(result));
            return result;
          }
          return Promise.resolve(result).then((resolved) => {
            span.setAttributes(resultAttributes(resolved));
            return resolved;
          });
        },
      );
    };
    // Most calls are made outside a recorded span and go straight to the method. The traced
    // call is a function of its own, and the arguments are only ever passed on, once: V8 then
    // forwards them without building an array, and allocates nothing in this function for
    // the traced call's closures, however often it has seen traced calls.
    wrapper[property] = (...args: unknown[]): unknown =>
      (insideRecordedSpan() ? traced : method).apply(target, args);
  }
  return wrapper as T;
}

/**
 * Runs a synchronous fast path, and records its span (child of the active one, from when it
 * started) only if it answered or failed.
 */
function recordAnswered(
  name: string,
  attributes: Attributes,
  resultAttributes: ((result: unknown) => Attributes) | undefined,
  run: () => unknown,
): unknown {
  const startTime = performance.timeOrigin + performance.now();
  let result: unknown;
  let failure: { error: unknown } | undefined;
  try {
    result = run();
  } catch (error) {
    failure = { error };
  }
  const tracer = activeTracerOrUndefined();
  if ((result !== undefined || failure !== undefined) && tracer !== undefined) {
    const span = tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, attributes, startTime },
      context.active(),
    );
    if (failure === undefined && resultAttributes !== undefined) {
      span.setAttributes(resultAttributes(result));
    }
    endSpan(span, failure?.error);
  }
  if (failure !== undefined) throw failure.error;
  return result;
}

/** Names of the functions `target` has, itself or along its prototype chain (not Object's). */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (
    let o: object | null = target;
    o !== null && o !== Object.prototype;
    o = Object.getPrototypeOf(o) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name === 'constructor' || names.has(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(o, name);
      if (descriptor !== undefined && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}

/**
 * Namespace and flag keys from the arguments of a repository or service method:
 * `(namespaceKey, key)` string arguments, or a request object with `namespaceKey` and
 * `flagKey` (or `key`). Entity ids and contexts are deliberately not recorded. Made once per
 * method: in `getFlag(ns, key)` or `createFlag({ key })` the key is a flag key; elsewhere it
 * is a segment, rule or rollout key.
 */
export function keyAttributesFor(method: string): (args: readonly unknown[]) => Attributes {
  const keyAttribute = FLAG_METHOD.test(method) ? ATTR_FLIPT_FLAG : 'vexil.key';
  return (args) => {
    const [first, second] = args;
    if (typeof first === 'string') {
      return typeof second === 'string'
        ? { [ATTR_FLIPT_NAMESPACE]: first, [keyAttribute]: second }
        : { [ATTR_FLIPT_NAMESPACE]: first };
    }
    if (typeof first !== 'object' || first === null) return {};
    const req = first as { namespaceKey?: unknown; flagKey?: unknown; key?: unknown };
    const out: Attributes = {};
    if (typeof req.namespaceKey === 'string') {
      out[ATTR_FLIPT_NAMESPACE] = req.namespaceKey === '' ? 'default' : req.namespaceKey;
    }
    if (typeof req.flagKey === 'string') out[ATTR_FLIPT_FLAG] = req.flagKey;
    else if (typeof req.key === 'string') out[keyAttribute] = req.key;
    return out;
  };
}

const FLAG_METHOD = /Flags?$/;

/** The outcome of a boolean or variant evaluation, under Flipt's attribute names. */
export function evaluationResultAttributes(result: unknown): Attributes {
  if (typeof result !== 'object' || result === null) return {};
  const r = result as {
    enabled?: unknown;
    match?: unknown;
    reason?: unknown;
    variantKey?: unknown;
  };
  const out: Attributes = {};
  if (typeof r.enabled === 'boolean') out[ATTR_FLIPT_FLAG_ENABLED] = r.enabled;
  if (typeof r.match === 'boolean') out[ATTR_FLIPT_MATCH] = r.match;
  if (typeof r.reason === 'string') out[ATTR_FLIPT_REASON] = r.reason;
  if (typeof r.variantKey === 'string') out[ATTR_FLIPT_VARIANT] = r.variantKey;
  return out;
}
