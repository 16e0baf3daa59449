import type { ManagementApi } from '../../domain/services/api';
import { FLIPT_SHAPES } from '../rpc/flipt-shapes';
import { managementRpcs } from '../rpc/management-rpcs';
import { MessageEncoders } from '../rpc/message-encoder';
import { fromGrpcMessage } from './request-message';
import { unimplemented, type UnaryHandler } from './unary';

type Msg = Readonly<Record<string, unknown>>;

/** Response messages of flipt.Flipt as proto-loader serializes them. */
const FLIPT_GRPC = new MessageEncoders('grpc', FLIPT_SHAPES);

/**
 * Handlers of every flipt.Flipt RPC, keyed by RPC name: the management ones derived from
 * their description (src/adapters/rpc/management-rpcs.ts) and flipt.proto. The legacy
 * Evaluate and BatchEvaluate are served by the evaluation module when it is configured;
 * until then they answer UNIMPLEMENTED, as an unregistered method would.
 */
export function createFliptHandlers(
  api: ManagementApi,
  legacyEvaluation?: {
    readonly Evaluate: UnaryHandler<Msg, unknown>;
    readonly BatchEvaluate: UnaryHandler<Msg, unknown>;
  },
): Record<string, UnaryHandler<Msg, unknown>> {
  const handlers: Record<string, UnaryHandler<Msg, unknown>> = {
    Evaluate:
      legacyEvaluation?.Evaluate ??
      (async () => {
        throw unimplemented('Evaluate');
      }),
    BatchEvaluate:
      legacyEvaluation?.BatchEvaluate ??
      (async () => {
        throw unimplemented('BatchEvaluate');
      }),
  };
  for (const rpc of managementRpcs()) {
    const present = FLIPT_GRPC.encoder(rpc.responseType);
    handlers[rpc.rpc] = async (m) => present(await rpc.call(api, fromGrpcMessage(m, rpc.request)));
  }
  return handlers;
}

export type FliptRequestMessage = Msg;
