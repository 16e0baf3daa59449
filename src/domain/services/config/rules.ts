import type {
  CreateDistributionRequest,
  CreateRuleRequest,
  DeleteDistributionRequest,
  DeleteRuleRequest,
  Distribution,
  ListRulesRequest,
  OrderRulesRequest,
  Page,
  Rule,
  UpdateDistributionRequest,
  UpdateRuleRequest,
} from '../../model';
import type { Repositories } from '../../../ports';
import { firstMissingSegment, referenced, type ConfigContext } from './context';
import {
  distributionNotFound,
  distributionRefsNotFound,
  ruleNotFound,
  ruleRefsNotFound,
  segmentNotFound,
} from './messages';

export async function getRule(c: ConfigContext, namespaceKey: string, id: string): Promise<Rule> {
  const rule = await c.unitOfWork.read((r) => r.rules.getRule(namespaceKey, id));
  if (rule === undefined) throw ruleNotFound(namespaceKey, id);
  return rule;
}

export function listRules(c: ConfigContext, req: ListRulesRequest): Promise<Page<Rule>> {
  return c.unitOfWork.read((r) => r.rules.listRules(req));
}

export function createRule(c: ConfigContext, req: CreateRuleRequest): Promise<Rule> {
  const { namespaceKey, flagKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    // Flipt quotes the deprecated single key as sent; a caller that gives none gets the one key.
    const raw = req.segmentKey ?? (req.segmentKeys.length === 1 ? req.segmentKeys[0] : '');
    const notFound = (): Error => ruleRefsNotFound(namespaceKey, flagKey, raw ?? '');
    if (
      !scope.namespaceExists ||
      (await r.flags.getFlag(namespaceKey, flagKey)) === undefined ||
      (await firstMissingSegment(r, namespaceKey, req.segmentKeys)) !== undefined
    ) {
      throw notFound();
    }
    const now = c.clock.now();
    const rule = {
      id: c.ids.uuid(),
      namespaceKey,
      flagKey,
      segmentKeys: [...req.segmentKeys],
      segmentOperator: req.segmentOperator,
      rank: req.rank,
      createdAt: now,
      updatedAt: now,
    };
    await referenced(r.rules.createRule(rule), notFound);
    return { ...rule, distributions: [] };
  });
}

export function updateRule(c: ConfigContext, req: UpdateRuleRequest): Promise<Rule> {
  const { namespaceKey, id } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const before = scope.namespaceExists ? await r.rules.getRule(namespaceKey, id) : undefined;
    if (before?.flagKey !== req.flagKey) throw ruleNotFound(namespaceKey, id);
    const missing = await firstMissingSegment(r, namespaceKey, req.segmentKeys);
    if (missing !== undefined) throw segmentNotFound(namespaceKey, missing);
    const update = {
      namespaceKey,
      id,
      segmentKeys: [...req.segmentKeys],
      segmentOperator: req.segmentOperator,
      updatedAt: c.clock.now(),
    };
    await r.rules.updateRule(update);
    return { ...before, ...update };
  });
}

export function deleteRule(c: ConfigContext, req: DeleteRuleRequest): Promise<void> {
  const { namespaceKey, flagKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    if (!scope.namespaceExists) return;
    await r.rules.deleteRule(namespaceKey, flagKey, req.id);
    // Flipt renumbers the flag's rules 1..n after every delete, found or not.
    const ranked = await r.rules.listRuleRanks(namespaceKey, flagKey);
    await r.rules.orderRules(
      namespaceKey,
      flagKey,
      ranked.map((x) => x.id),
      c.clock.now(),
    );
  });
}

export function orderRules(c: ConfigContext, req: OrderRulesRequest): Promise<void> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    if (scope.namespaceExists) {
      await r.rules.orderRules(req.namespaceKey, req.flagKey, req.ruleIds, c.clock.now());
    }
  });
}

/** Flipt joins rule, variant and flag by namespace only: the variant may be another flag's. */
async function distributionRefsExist(
  r: Repositories,
  req: CreateDistributionRequest,
): Promise<boolean> {
  return (
    (await r.rules.getRule(req.namespaceKey, req.ruleId)) !== undefined &&
    (await r.flags.getVariant(req.namespaceKey, req.variantId)) !== undefined &&
    (await r.flags.getFlag(req.namespaceKey, req.flagKey)) !== undefined
  );
}

export function createDistribution(
  c: ConfigContext,
  req: CreateDistributionRequest,
): Promise<Distribution> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    const notFound = (): Error => distributionRefsNotFound(req);
    if (!scope.namespaceExists || !(await distributionRefsExist(r, req))) throw notFound();
    const now = c.clock.now();
    const distribution: Distribution = {
      id: c.ids.uuid(),
      ruleId: req.ruleId,
      variantId: req.variantId,
      rollout: req.rollout,
      createdAt: now,
      updatedAt: now,
    };
    await referenced(r.rules.createDistribution(distribution), notFound);
    return distribution;
  });
}

export function updateDistribution(
  c: ConfigContext,
  req: UpdateDistributionRequest,
): Promise<Distribution> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    const notFound = (): Error => distributionRefsNotFound(req);
    if (!scope.namespaceExists || !(await distributionRefsExist(r, req))) throw notFound();
    const before = await r.rules.getDistribution(req.ruleId, req.id);
    if (before === undefined) throw distributionNotFound(req.id);
    const update = {
      id: req.id,
      ruleId: req.ruleId,
      variantId: req.variantId,
      rollout: req.rollout,
      updatedAt: c.clock.now(),
    };
    await referenced(r.rules.updateDistribution(update), notFound);
    return { ...update, createdAt: before.createdAt };
  });
}

export function deleteDistribution(
  c: ConfigContext,
  req: DeleteDistributionRequest,
): Promise<void> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    if (scope.namespaceExists) await r.rules.deleteDistribution(req.ruleId, req.id, req.variantId);
  });
}
