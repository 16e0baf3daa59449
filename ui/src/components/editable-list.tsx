import { Fragment, useState, type ReactNode } from 'react';
import { EditDeleteButtons } from './buttons';
import { ConfirmDialog } from './dialog';

/**
 * A list of things each edited in a dialog and deleted after asking. Which one is being
 * edited (or 'new', for the list's Add button) is the caller's, so the button can live
 * outside the list.
 */
export function EditableList<T>({
  items,
  itemKey,
  what,
  readOnly,
  deleteBlocked,
  render,
  empty,
  editing,
  onEditingChange,
  dialog,
  removeTitle,
  confirmLabel,
  onRemove,
  removal,
}: {
  items: readonly T[];
  itemKey: (item: T) => string;
  /** The item as its Edit and Delete buttons name it: "variant blue". */
  what: (item: T) => string;
  readOnly?: string;
  /** Why an item cannot be deleted, when it cannot. */
  deleteBlocked?: (item: T) => string | undefined;
  render: (item: T) => ReactNode;
  /** Shown instead of the list when it is empty. */
  empty: ReactNode;
  editing: T | 'new' | undefined;
  onEditingChange: (editing: T | 'new' | undefined) => void;
  dialog: (item: T | undefined, onClose: () => void) => ReactNode;
  removeTitle: (item: T | undefined) => string;
  confirmLabel: string;
  onRemove: (item: T) => Promise<void>;
  /** What deleting an item means, said before it is deleted. */
  removal: (item: T | undefined) => ReactNode;
}) {
  const [removing, setRemoving] = useState<T>();
  return (
    <>
      {items.length === 0 ? (
        empty
      ) : (
        <ul className="items">
          {items.map((item) => (
            <li key={itemKey(item)} className="item">
              <div className="item-main">{render(item)}</div>
              <EditDeleteButtons
                what={what(item)}
                readOnly={readOnly}
                deleteBlocked={deleteBlocked?.(item)}
                onEdit={() => onEditingChange(item)}
                onDelete={() => setRemoving(item)}
              />
            </li>
          ))}
        </ul>
      )}
      {editing ? (
        <Fragment key={editing === 'new' ? 'new' : itemKey(editing)}>
          {dialog(editing === 'new' ? undefined : editing, () => onEditingChange(undefined))}
        </Fragment>
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        onOpenChange={(o) => !o && setRemoving(undefined)}
        title={removeTitle(removing)}
        confirmLabel={confirmLabel}
        onConfirm={async () => {
          if (removing) await onRemove(removing);
        }}
      >
        {removal(removing)}
      </ConfirmDialog>
    </>
  );
}
