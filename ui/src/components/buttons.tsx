import type { ReactNode } from 'react';
import { Icon } from './icons';

/**
 * A button that changes configuration: in read-only mode it is disabled, with the reason as
 * its title. `blocked` disables it likewise for a reason of the screen's own.
 */
export function GuardedButton({
  readOnly,
  blocked,
  className,
  onClick,
  children,
}: {
  readOnly?: string;
  blocked?: string;
  className: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={className}
      onClick={onClick}
      disabled={readOnly !== undefined || blocked !== undefined}
      title={readOnly ?? blocked}
    >
      {children}
    </button>
  );
}

/** The Edit and Delete icon buttons of an item in a list, named after the item (`what`). */
export function EditDeleteButtons({
  what,
  readOnly,
  deleteBlocked,
  onEdit,
  onDelete,
}: {
  what: string;
  readOnly?: string;
  /** Why this item cannot be deleted, when it cannot. */
  deleteBlocked?: string;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <>
      <button
        type="button"
        className="btn small ghost"
        aria-label={`Edit ${what}`}
        title={readOnly ?? 'Edit'}
        disabled={readOnly !== undefined}
        onClick={onEdit}
      >
        <Icon name="edit" />
      </button>
      <button
        type="button"
        className="btn small ghost"
        aria-label={`Delete ${what}`}
        title={readOnly ?? deleteBlocked ?? 'Delete'}
        disabled={readOnly !== undefined || deleteBlocked !== undefined}
        onClick={onDelete}
      >
        <Icon name="trash" />
      </button>
    </>
  );
}
