import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { FieldErrors } from '../forms';
import { useNamespace } from '../namespace';
import { useReadOnly } from '../session';
import { GuardedButton } from './buttons';
import { ConfirmDialog } from './dialog';
import { SaveBar, TextField } from './form-fields';
import { Icon } from './icons';
import { useToast } from './toast';
import { ErrorPanel, LoadingRows, PageHead, Section } from './ui';

/** What the page of a flag or segment gives the view of the thing itself. */
export interface DetailParts {
  namespace: string;
  readOnly?: string;
  crumbs: ReactNode;
  /** Deletes the thing, after asking, and goes back to the list. */
  deleteButton: ReactNode;
}

/**
 * The page of one flag or segment (its key is the route's `flagKey` or `segmentKey`):
 * breadcrumbs back to its list, a placeholder while it loads, the error (with the title and
 * breadcrumbs still there) when it cannot, and its Delete button.
 */
export function DetailPage<T extends { key: string }>({
  kind,
  get,
  remove,
  deleteWarning,
  children,
}: {
  kind: 'flag' | 'segment';
  get: (namespace: string, key: string) => Promise<T>;
  remove: (namespace: string, key: string) => Promise<unknown>;
  /** What deleting it means, said before it is deleted. */
  deleteWarning: (item: T) => ReactNode;
  children: (item: T, parts: DetailParts) => ReactNode;
}) {
  const namespace = useNamespace();
  const itemKey = useParams()[`${kind}Key`] ?? '';
  const readOnly = useReadOnly();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const query = useQuery({
    queryKey: [kind, namespace, itemKey],
    queryFn: () => get(namespace, itemKey),
  });
  const listHref = `/namespaces/${encodeURIComponent(namespace)}/${kind}s`;
  const Kind = kind === 'flag' ? 'Flag' : 'Segment';
  const crumbs = (
    <>
      <Link to={listHref}>{`${Kind}s`}</Link>
      <span aria-hidden="true">/</span>
      <span className="mono">{itemKey}</span>
    </>
  );
  const item = query.data;
  if (query.isPending) return <LoadingRows label={`Loading ${kind}`} />;
  if (query.isError || item === undefined) {
    return (
      <>
        <PageHead title={itemKey} crumbs={crumbs} />
        <ErrorPanel error={query.error} retry={() => void query.refetch()} />
      </>
    );
  }
  const deleteButton = (
    <DeleteButton
      readOnly={readOnly}
      title={`Delete ${kind} ${item.key}?`}
      confirmLabel={`Delete ${kind}`}
      onConfirm={async () => {
        await remove(namespace, item.key);
        client.removeQueries({ queryKey: [kind, namespace, item.key] });
        await client.invalidateQueries({ queryKey: [`${kind}s`, namespace] });
        toast(`${Kind} ${item.key} deleted`);
        void navigate(listHref);
      }}
    >
      {deleteWarning(item)}
    </DeleteButton>
  );
  return children(item, { namespace, readOnly, crumbs, deleteButton });
}

/** A page's Delete button, and the question it asks before deleting. */
function DeleteButton({
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
