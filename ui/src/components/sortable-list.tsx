import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type DragEndEvent,
} from '@dnd-kit/core';
import {
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { ReactNode } from 'react';
import { Icon } from './icons';
import { moveById } from '../lib/reorder';

/**
 * A ranked list that can be reordered with the mouse, touch, or the keyboard: focus a handle,
 * Space to pick up, arrows to move, Space to drop, Escape to cancel. Move up/down buttons
 * in each item offer the same without dragging.
 */
export function SortableList<T extends { id: string }>({
  items,
  onReorder,
  disabled,
  label,
  render,
}: {
  items: T[];
  onReorder: (next: T[]) => void;
  disabled?: boolean;
  label: (item: T, index: number) => string;
  render: (item: T, index: number, handle: ReactNode) => ReactNode;
}) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (over && active.id !== over.id)
      onReorder(moveById(items, String(active.id), String(over.id)));
  };
  const position = (id: string | number) => items.findIndex((i) => i.id === id) + 1;
  const labelOf = (id: string | number) => {
    const index = items.findIndex((i) => i.id === id);
    const item = items[index];
    return item ? label(item, index) : 'item';
  };
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{
        screenReaderInstructions: {
          draggable:
            'To reorder, press Space to pick up, use the arrow keys to move, Space to drop, Escape to cancel.',
        },
        announcements: {
          onDragStart: ({ active }) =>
            `Picked up ${labelOf(active.id)}, position ${position(active.id)}.`,
          onDragOver: ({ active, over }) =>
            over ? `${labelOf(active.id)} moved to position ${position(over.id)}.` : undefined,
          onDragEnd: ({ active, over }) =>
            over
              ? `${labelOf(active.id)} dropped at position ${position(over.id)}.`
              : `${labelOf(active.id)} dropped.`,
          onDragCancel: ({ active }) => `Moving ${labelOf(active.id)} was cancelled.`,
        },
      }}
    >
      <SortableContext items={items.map((i) => i.id)} strategy={verticalListSortingStrategy}>
        <ol className="items">
          {items.map((item, index) => (
            <SortableItem key={item.id} id={item.id} disabled={disabled} label={label(item, index)}>
              {(handle) => render(item, index, handle)}
            </SortableItem>
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

function SortableItem({
  id,
  disabled,
  label,
  children,
}: {
  id: string;
  disabled?: boolean;
  label: string;
  children: (handle: ReactNode) => ReactNode;
}) {
  const {
    attributes,
    listeners,
    setNodeRef,
    setActivatorNodeRef,
    transform,
    transition,
    isDragging,
  } = useSortable({ id, disabled });
  const handle = (
    <button
      type="button"
      className="drag-handle"
      ref={setActivatorNodeRef}
      {...attributes}
      {...listeners}
      aria-label={`Reorder ${label}`}
      disabled={disabled}
    >
      <Icon name="grip" />
    </button>
  );
  return (
    <li
      ref={setNodeRef}
      className={`item sortable-item${isDragging ? ' dragging' : ''}`}
      style={{ transform: CSS.Transform.toString(transform), transition }}
    >
      {children(handle)}
    </li>
  );
}
