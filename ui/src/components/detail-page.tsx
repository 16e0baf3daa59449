import type { UseQueryResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { FieldErrors } from '../forms';
import { GuardedButton } from './buttons';
import { ConfirmDialog } from './dialog';
import { SaveBar, TextField } from './form-fields';
import { Icon } from './icons';
import { ErrorPanel, LoadingRows, PageHead, Section } from './ui';

/**
 * The page of one flag or segment: breadcrumbs back to its list, a placeholder while it loads,
 * and the error (with the page's title and breadcrumbs still there) when it cannot.
 */
export function DetailPage<T>({
  query,
  listLabel,
  listHref,
  itemKey,
  loadingLabel,
  children,
}: {
  query: UseQueryResult<T>;
  listLabel: string;
  listHref: string;
  itemKey: string;
  loadingLabel: string;
  children: (item: T, crumbs: ReactNode) => ReactNode;
}) {
  const crumbs = (
    <>
      <Link to={listHref}>{listLabel}</Link>
      <span aria-hidden="true">/</span>
      <span className="mono">{itemKey}</span>
    </>
  );
  if (query.isPending) return <LoadingRows label={loadingLabel} />;
  if (query.isError || query.data === undefined) {
    return (
      <>
        <PageHead title={itemKey} crumbs={crumbs} />
        <ErrorPanel error={query.error} retry={() => void query.refetch()} />
      </>
    );
  }
  return children(query.data, crumbs);
}

/** A page's Delete button, and the question it asks before deleting. */
export function DeleteButton({
  readOnly,
  title,
  confirmLabel,
  onConfirm,
  children,
}: {
  readOnly?: string;
  title: string;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  /** What deleting means, said in the question. */
  children: ReactNode;
}) {
  const [deleting, setDeleting] = useState(false);
  return (
    <>
      <GuardedButton className="btn danger" onClick={() => setDeleting(true)} readOnly={readOnly}>
        <Icon name="trash" /> Delete
      </GuardedButton>
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={title}
        confirmLabel={confirmLabel}
        onConfirm={onConfirm}
      >
        {children}
      </ConfirmDialog>
    </>
  );
}

/**
 * The Details card of a flag or segment: its name and description, the fields given as
 * children, and Save once something has changed.
 */
export function DetailsSection({
  id,
  onSubmit,
  form,
  name,
  onNameChange,
  description,
  onDescriptionChange,
  dirty,
  readOnly,
  children,
}: {
  id: string;
  onSubmit: () => Promise<void>;
  form: { errors: FieldErrors; formError?: string; busy: boolean };
  name: string;
  onNameChange: (name: string) => void;
  description: string;
  onDescriptionChange: (description: string) => void;
  dirty: boolean;
  readOnly?: string;
  children?: ReactNode;
}) {
  return (
    <Section id={id} title="Details">
      <form
        className="form card-body"
        onSubmit={(event) => {
          event.preventDefault();
          void onSubmit();
        }}
        noValidate
      >
        <TextField
          label="Name"
          error={form.errors.name}
          value={name}
          disabled={readOnly !== undefined}
          onChange={onNameChange}
        />
        <TextField
          label="Description"
          multiline
          value={description}
          disabled={readOnly !== undefined}
          onChange={onDescriptionChange}
        />
        {children}
        <SaveBar error={form.formError} busy={form.busy} dirty={dirty} readOnly={readOnly} />
      </form>
    </Section>
  );
}
