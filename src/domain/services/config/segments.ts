import type {
  Constraint,
  CreateConstraintRequest,
  CreateSegmentRequest,
  DeleteConstraintRequest,
  DeleteSegmentRequest,
  ListSegmentsRequest,
  Page,
  Segment,
  UpdateConstraintRequest,
  UpdateSegmentRequest,
} from '../../model';
import { referenced, unique, type ConfigContext } from './context';
import {
  constraintNotFound,
  namespaceNotFound,
  segmentInUse,
  segmentNotFound,
  segmentNotUnique,
} from './messages';

export async function getSegment(
  c: ConfigContext,
  namespaceKey: string,
  key: string,
): Promise<Segment> {
  const segment = await c.unitOfWork.read((r) => r.segments.getSegment(namespaceKey, key));
  if (segment === undefined) throw segmentNotFound(namespaceKey, key);
  return segment;
}

export function listSegments(c: ConfigContext, req: ListSegmentsRequest): Promise<Page<Segment>> {
  return c.unitOfWork.read((r) => r.segments.listSegments(req));
}

export function createSegment(c: ConfigContext, req: CreateSegmentRequest): Promise<Segment> {
  const { namespaceKey, key } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    if (!scope.namespaceExists) throw namespaceNotFound(namespaceKey);
    const now = c.clock.now();
    const segment = {
      namespaceKey,
      key,
      name: req.name,
      description: req.description,
      matchType: req.matchType,
      createdAt: now,
      updatedAt: now,
    };
    await unique(r.segments.createSegment(segment), () => segmentNotUnique(namespaceKey, key));
    return { ...segment, constraints: [] };
  });
}

export function updateSegment(c: ConfigContext, req: UpdateSegmentRequest): Promise<Segment> {
  const { namespaceKey, key } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const before = scope.namespaceExists
      ? await r.segments.getSegment(namespaceKey, key)
      : undefined;
    if (before === undefined) throw segmentNotFound(namespaceKey, key);
    const update = {
      namespaceKey,
      key,
      name: req.name,
      description: req.description,
      matchType: req.matchType,
      updatedAt: c.clock.now(),
    };
    await r.segments.updateSegment(update);
    return { ...before, ...update };
  });
}

export function deleteSegment(c: ConfigContext, req: DeleteSegmentRequest): Promise<void> {
  const { namespaceKey, key } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    if (!scope.namespaceExists) return;
    const inUse = (): Error => segmentInUse(namespaceKey, key);
    if (await r.segments.isSegmentInUse(namespaceKey, key)) throw inUse();
    await referenced(r.segments.deleteSegment(namespaceKey, key), inUse);
  });
}

export function createConstraint(
  c: ConfigContext,
  req: CreateConstraintRequest,
): Promise<Constraint> {
  const { namespaceKey, segmentKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const notFound = (): Error => segmentNotFound(namespaceKey, segmentKey);
    if (!scope.namespaceExists) throw notFound();
    const found = await r.segments.findSegmentKeys(namespaceKey, [segmentKey]);
    if (found.length === 0) throw notFound();
    const now = c.clock.now();
    const constraint: Constraint = {
      id: c.ids.uuid(),
      namespaceKey,
      segmentKey,
      type: req.type,
      property: req.property,
      operator: req.operator,
      value: req.value,
      description: req.description,
      createdAt: now,
      updatedAt: now,
    };
    await referenced(r.segments.createConstraint(constraint), notFound);
    return constraint;
  });
}

export function updateConstraint(
  c: ConfigContext,
  req: UpdateConstraintRequest,
): Promise<Constraint> {
  const { namespaceKey, segmentKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const before = scope.namespaceExists
      ? await r.segments.getConstraint(namespaceKey, segmentKey, req.id)
      : undefined;
    if (before === undefined) throw constraintNotFound(req.id);
    const update = {
      id: req.id,
      namespaceKey,
      segmentKey,
      type: req.type,
      property: req.property,
      operator: req.operator,
      value: req.value,
      description: req.description,
      updatedAt: c.clock.now(),
    };
    await r.segments.updateConstraint(update);
    return { ...update, createdAt: before.createdAt };
  });
}

export function deleteConstraint(c: ConfigContext, req: DeleteConstraintRequest): Promise<void> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    if (scope.namespaceExists) {
      await r.segments.deleteConstraint(req.namespaceKey, req.segmentKey, req.id);
    }
  });
}
