import { isValidElement, useState, type ReactElement, type ReactNode } from 'react';
import { Link } from 'react-router';
import { relativeTime } from '../lib/datetime';
import { GuardedButton } from './buttons';
import { Icon } from './icons';
import { ErrorPanel, PageHead } from './ui';

/**
 * A page listing one kind of thing: its heading and action, the error when the list cannot
 * be loaded, and the card (named `label`) that holds the list.
 */
export function ListPage({
  title,
  subtitle,
  action,
  query,
  label,
  children,
  dialogs,
}: {
  title: string;
  subtitle: ReactNode;
  action: ReactNode;
  query: { isError: boolean; error: unknown; refetch: () => Promise<unknown> };
  label: string;
  children: ReactNode;
  /** The page's dialogs, which open over it. */
  dialogs?: ReactNode;
}) {
  return (
    <>
      <PageHead title={title} subtitle={subtitle} actions={action} />
      {query.isError ? <ErrorPanel error={query.error} retry={() => void query.refetch()} /> : null}
      <section className="card" aria-label={label}>
        {children}
      </section>
      {dialogs}
    </>
  );
}

/** The primary button that creates a thing, unavailable in read-only mode. */
export function CreateButton({
  readOnly,
  onClick,
  children,
}: {
  readOnly?: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <GuardedButton className="btn primary" onClick={onClick} readOnly={readOnly}>
      <Icon name="plus" /> {children}
    </GuardedButton>
  );
}

/**
 * Whether a list page's create dialog is open, and the buttons that open it (in the heading,
 * and in the empty list), unavailable in read-only mode.
 */
export function useCreateDialog(readOnly?: string) {
  const [open, setOpen] = useState(false);
  return {
    open,
    onOpenChange: setOpen,
    button: (label: string) => (
      <CreateButton onClick={() => setOpen(true)} readOnly={readOnly}>
        {label}
      </CreateButton>
    ),
  };
}

/** The search field of a list's toolbar, labelled for screen readers only. */
export function SearchBox({
  label,
  value,
  onChange,
  inline,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Laid out in a row with other controls of the toolbar. */
  inline?: boolean;
}) {
  return (
    <label
      className={inline ? 'search inline' : 'search'}
      style={inline ? { position: 'relative' } : undefined}
    >
      <span className="sr-only">{label}</span>
      <input
        className="input"
        type="search"
        placeholder="Search by key or name…"
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}

/** A column heading; `hideSm` hides the column on small screens. */
export interface Column {
  label: ReactNode;
  hideSm?: boolean;
}

/** A table of things, one a row; a column given as an element is its own heading cell. */
export function Table({
  caption,
  columns,
  children,
}: {
  caption?: ReactNode;
  columns: readonly (Column | ReactElement)[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className="table">
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c, i) =>
              isValidElement(c) ? (
                c
              ) : (
                <th key={i} scope="col" className={c.hideSm ? 'hide-sm' : undefined}>
                  {c.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The first cell of a row: the thing's name, linking to its page, and its key below. */
export function NameCell({ href, name, itemKey }: { href: string; name: string; itemKey: string }) {
  return (
    <td className="primary-cell">
      <Link to={href}>{name || itemKey}</Link>
      <div className="secondary mono">{itemKey}</div>
    </td>
  );
}

/** A cell saying how long ago something happened, the exact time in its title. */
export function TimeCell({ time }: { time: string }) {
  return (
    <td className="hide-sm secondary" title={time}>
      {relativeTime(time)}
    </td>
  );
}
