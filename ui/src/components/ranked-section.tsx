import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useState, type ReactNode } from 'react';
import { messageOf } from '../lib/api-error';
import { changedOrder, move } from '../lib/reorder';
import { EditDeleteButtons, GuardedButton } from './buttons';
import { ConfirmDialog } from './dialog';
import { Icon } from './icons';
import { SortableList } from './sortable-list';
import { useToast } from './toast';
import { EmptyState, ErrorPanel, LoadingRows, Section } from './ui';

interface Ranked {
  id: string;
  rank: number;
}

/**
 * A flag's ordered list of rules or rollouts: checked from the top, reordered by dragging or
 * by the move buttons, each edited in a dialog and deleted after asking. The order is shown
 * at once and put back if the service refuses it.
 */
export function RankedSection<T extends Ranked>({
  noun,
  intro,
  queryKey,
  list,
  order,
  remove,
  removal,
  readOnly,
  addBlocked,
  empty,
  describe,
  render,
  dialog,
}: {
  /** What one item is called, in lower case: "rule". */
  noun: string;
  intro: ReactNode;
  queryKey: readonly unknown[];
  list: () => Promise<{ rules: T[] }>;
  order: (ids: string[]) => Promise<unknown>;
  remove: (item: T) => Promise<unknown>;
  /** What deleting an item means, said before it is deleted. */
  removal: ReactNode;
  readOnly?: string;
  /** Why nothing can be added yet, when nothing can. */
  addBlocked?: string;
  empty: ReactNode;
  describe: (item: T) => string;
  render: (item: T) => ReactNode;
  dialog: (item: T | undefined, items: T[], onClose: () => void) => ReactNode;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const query = useQuery({ queryKey, queryFn: list });
  const [items, setItems] = useState<T[]>([]);
  const [editing, setEditing] = useState<T | 'new'>();
  const [removing, setRemoving] = useState<T>();
  useEffect(() => setItems(query.data?.rules ?? []), [query.data]);
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
  const plural = `${noun}s`;
  const ro = readOnly !== undefined;

  const reorder = async (next: T[]) => {
    const ids = changedOrder(items, next);
    if (!ids) return;
    const before = items;
    setItems(next);
    try {
      await order(ids);
      toast(`${Noun} order saved`);
      void client.invalidateQueries({ queryKey });
    } catch (err) {
      setItems(before);
      toast(`Could not reorder: ${messageOf(err)}`, 'error');
    }
  };

  return (
    <Section
      id={`${plural}-h`}
      title={`${Noun}s`}
      intro={intro}
      action={
        <GuardedButton
          className="btn small"
          onClick={() => setEditing('new')}
          readOnly={readOnly}
          blocked={addBlocked}
        >
          <Icon name="plus" /> Add {noun}
        </GuardedButton>
      }
    >
      {query.isPending ? (
        <LoadingRows label={`Loading ${plural}`} />
      ) : query.isError ? (
        <div className="card-body">
          <ErrorPanel error={query.error} retry={() => void query.refetch()} />
        </div>
      ) : items.length === 0 ? (
        <EmptyState icon="segment" title={`No ${plural}`}>
          {empty}
        </EmptyState>
      ) : (
        <SortableList
          items={items}
          onReorder={(next) => void reorder(next)}
          disabled={ro}
          label={(item, i) => `${noun} ${i + 1} (${describe(item)})`}
          render={(item, index, handle) => (
            <>
              {handle}
              <span className="rank" aria-label={`Rank ${index + 1}`}>
                {index + 1}
              </span>
              <div className="item-main">{render(item)}</div>
              <div className="btn-row">
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Move ${noun} ${index + 1} up`}
                  disabled={ro || index === 0}
                  onClick={() => void reorder(move(items, index, index - 1))}
                >
                  <Icon name="up" />
                </button>
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Move ${noun} ${index + 1} down`}
                  disabled={ro || index === items.length - 1}
                  onClick={() => void reorder(move(items, index, index + 1))}
                >
                  <Icon name="down" />
                </button>
                <EditDeleteButtons
                  what={`${noun} ${index + 1}`}
                  readOnly={readOnly}
                  onEdit={() => setEditing(item)}
                  onDelete={() => setRemoving(item)}
                />
              </div>
            </>
          )}
        />
      )}
      {editing ? (
        <Fragment key={editing === 'new' ? 'new' : editing.id}>
          {dialog(editing === 'new' ? undefined : editing, items, () => setEditing(undefined))}
        </Fragment>
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        onOpenChange={(o) => !o && setRemoving(undefined)}
        title={`Delete this ${noun}?`}
        confirmLabel={`Delete ${noun}`}
        onConfirm={async () => {
          if (!removing) return;
          await remove(removing);
          await client.invalidateQueries({ queryKey });
          toast(`${Noun} deleted`);
        }}
      >
        {removal}
      </ConfirmDialog>
    </Section>
  );
}
