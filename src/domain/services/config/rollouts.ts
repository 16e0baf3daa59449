import type {
  CreateRolloutRequest,
  DeleteRolloutRequest,
  ListRolloutsRequest,
  OrderRolloutsRequest,
  Page,
  Rollout,
  RolloutSegment,
  RolloutThreshold,
  RolloutType,
  UpdateRolloutRequest,
} from '../../model';
import { firstMissingSegment, referenced, type ConfigContext } from './context';
import {
  flagNotFound,
  rolloutNotFound,
  rolloutRankTaken,
  rolloutRuleInvalid,
  rolloutRuleMissing,
  rolloutSegmentRefsNotFound,
  rolloutTypeChange,
  segmentNotFound,
} from './messages';

export async function getRollout(
  c: ConfigContext,
  namespaceKey: string,
  id: string,
): Promise<Rollout> {
  const rollout = await c.unitOfWork.read((r) => r.rollouts.getRollout(namespaceKey, id));
  if (rollout === undefined) throw rolloutNotFound(namespaceKey, id);
  return rollout;
}

export function listRollouts(c: ConfigContext, req: ListRolloutsRequest): Promise<Page<Rollout>> {
  return c.unitOfWork.read((r) => r.rollouts.listRollouts(req));
}

/** The rule a request gives, copied so that the caller's arrays are not kept. */
function ruleOf(req: CreateRolloutRequest | UpdateRolloutRequest): {
  segment: RolloutSegment | undefined;
  threshold: RolloutThreshold | undefined;
} {
  const { segment, threshold } = req;
  if (segment !== undefined) {
    return {
      segment: {
        segmentKeys: [...segment.segmentKeys],
        segmentOperator: segment.segmentOperator,
        value: segment.value,
      },
      threshold: undefined,
    };
  }
  return {
    segment: undefined,
    threshold:
      threshold === undefined
        ? undefined
        : { percentage: threshold.percentage, value: threshold.value },
  };
}

const typeOf = (rule: { segment?: unknown; threshold?: unknown }): RolloutType | undefined =>
  rule.segment !== undefined
    ? 'SEGMENT_ROLLOUT_TYPE'
    : rule.threshold !== undefined
      ? 'THRESHOLD_ROLLOUT_TYPE'
      : undefined;

export function createRollout(c: ConfigContext, req: CreateRolloutRequest): Promise<Rollout> {
  const { namespaceKey, flagKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    if (scope.namespaceExists) {
      const ranks = await r.rollouts.listRolloutRanks(namespaceKey, flagKey);
      if (ranks.some((x) => x.rank === req.rank)) throw rolloutRankTaken(req.rank);
    }
    const type = typeOf(req);
    if (type === undefined) throw rolloutRuleMissing();
    const flagExists =
      scope.namespaceExists && (await r.flags.getFlag(namespaceKey, flagKey)) !== undefined;
    const { segment } = req;
    let notFound: () => Error;
    if (segment !== undefined) {
      const keys = segment.segmentKeys;
      const raw = segment.segmentKey ?? (keys.length === 1 ? keys[0] : '');
      notFound = () => rolloutSegmentRefsNotFound(namespaceKey, flagKey, raw ?? '');
      if (!flagExists || (await firstMissingSegment(r, namespaceKey, keys)) !== undefined) {
        throw notFound();
      }
    } else {
      notFound = () => flagNotFound(namespaceKey, flagKey);
      if (!flagExists) throw notFound();
    }
    const now = c.clock.now();
    const rule = ruleOf(req);
    const rollout: Rollout = {
      id: c.ids.uuid(),
      namespaceKey,
      flagKey,
      type,
      rank: req.rank,
      description: req.description,
      ...(rule.segment !== undefined ? { segment: rule.segment } : {}),
      ...(rule.threshold !== undefined ? { threshold: rule.threshold } : {}),
      createdAt: now,
      updatedAt: now,
    };
    await referenced(r.rollouts.createRollout(rollout), notFound);
    return rollout;
  });
}

export function updateRollout(c: ConfigContext, req: UpdateRolloutRequest): Promise<Rollout> {
  const { namespaceKey, id } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const before = scope.namespaceExists
      ? await r.rollouts.getRollout(namespaceKey, id)
      : undefined;
    if (before?.flagKey !== req.flagKey) throw rolloutNotFound(namespaceKey, id);
    const wanted = typeOf(req);
    if (wanted === undefined) throw rolloutRuleInvalid();
    if (before.type !== wanted) throw rolloutTypeChange(before.type, wanted);
    if (req.segment !== undefined) {
      const missing = await firstMissingSegment(r, namespaceKey, req.segment.segmentKeys);
      if (missing !== undefined) throw segmentNotFound(namespaceKey, missing);
    }
    const update = {
      namespaceKey,
      id,
      description: req.description,
      ...ruleOf(req),
      updatedAt: c.clock.now(),
    };
    await r.rollouts.updateRollout(update);
    const { segment, threshold, ...rest } = { ...before, ...update };
    return {
      ...rest,
      ...(segment !== undefined ? { segment } : {}),
      ...(threshold !== undefined ? { threshold } : {}),
    };
  });
}

export function deleteRollout(c: ConfigContext, req: DeleteRolloutRequest): Promise<void> {
  const { namespaceKey, flagKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    if (!scope.namespaceExists) return;
    await r.rollouts.deleteRollout(namespaceKey, flagKey, req.id);
    // Renumbered 1..n after every delete, found or not, as Flipt does.
    const ranked = await r.rollouts.listRolloutRanks(namespaceKey, flagKey);
    await r.rollouts.orderRollouts(
      namespaceKey,
      flagKey,
      ranked.map((x) => x.id),
      c.clock.now(),
    );
  });
}

export function orderRollouts(c: ConfigContext, req: OrderRolloutsRequest): Promise<void> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    if (scope.namespaceExists) {
      await r.rollouts.orderRollouts(req.namespaceKey, req.flagKey, req.rolloutIds, c.clock.now());
    }
  });
}
