/** Moving one item of a ranked list (rules, rollouts), by drag and drop or by keyboard. */
export function move<T>(items: readonly T[], from: number, to: number): T[] {
  const out = items.slice();
  if (from < 0 || from >= out.length || to < 0 || to >= out.length || from === to) return out;
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item as T);
  return out;
}

export function moveById<T extends { id: string }>(
  items: readonly T[],
  activeId: string,
  overId: string,
): T[] {
  return move(
    items,
    items.findIndex((i) => i.id === activeId),
    items.findIndex((i) => i.id === overId),
  );
}

/** The ids in their new order, or undefined when nothing moved. */
export function changedOrder(before: readonly { id: string }[], after: readonly { id: string }[]) {
  const ids = after.map((i) => i.id);
  return ids.every((id, index) => before[index]?.id === id) ? undefined : ids;
}
