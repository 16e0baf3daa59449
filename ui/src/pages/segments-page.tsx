import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { segments as segmentsApi } from '../api/endpoints';
import type { MatchType } from '../api/types';
import { CreateDialog, type CreateDialogProps } from '../components/create-dialog';
import { ChoiceGroup } from '../components/form-fields';
import {
  ListPage,
  NameCell,
  SearchBox,
  Table,
  TimeCell,
  useCreateDialog,
} from '../components/list-page';
import { EmptyState, LoadingRows } from '../components/ui';
import { searchWords } from '../lib/flag-list';
import { useNamespace } from '../namespace';
import { useReadOnly } from '../session';

export function SegmentsPage() {
  const namespace = useNamespace();
  const readOnly = useReadOnly();
  const create = useCreateDialog(readOnly);
  const [search, setSearch] = useState('');
  const query = useQuery({
    queryKey: ['segments', namespace],
    queryFn: () => segmentsApi.list(namespace),
  });
  const all = query.data?.segments ?? [];
  const shown = useMemo(() => {
    const words = searchWords(search);
    return all.filter((s) => words.every((w) => `${s.key} ${s.name}`.toLowerCase().includes(w)));
  }, [all, search]);
  const nsLink = `/namespaces/${encodeURIComponent(namespace)}`;

  return (
    <ListPage
      title="Segments"
      subtitle="Groups of entities, described by constraints on their context."
      action={create.button('New segment')}
      query={query}
      label="Segments"
      dialogs={
        <CreateSegmentDialog
          open={create.open}
          onOpenChange={create.onOpenChange}
          namespace={namespace}
        />
      }
    >
      {all.length > 0 ? (
        <div className="toolbar" role="search">
          <SearchBox label="Search segments" value={search} onChange={setSearch} />
        </div>
      ) : null}
      {query.isPending ? (
        <LoadingRows label="Loading segments" />
      ) : all.length === 0 ? (
        <EmptyState
          icon="segment"
          title="No segments yet"
          actions={create.button('Create a segment')}
        >
          Segments such as “beta testers” or “customers in France” let rules and rollouts target
          people.
        </EmptyState>
      ) : shown.length === 0 ? (
        <EmptyState icon="search" title="No segment matches">
          Nothing has “{search}” in its key or name.
        </EmptyState>
      ) : (
        <Table
          columns={[
            { label: 'Segment' },
            { label: 'Match' },
            { label: 'Constraints', hideSm: true },
            { label: 'Updated', hideSm: true },
          ]}
        >
          {shown.map((s) => (
            <tr key={s.key}>
              <NameCell
                href={`${nsLink}/segments/${encodeURIComponent(s.key)}`}
                name={s.name}
                itemKey={s.key}
              />
              <td>
                <span className="badge">{s.matchType === 'ANY_MATCH_TYPE' ? 'Any' : 'All'}</span>
              </td>
              <td className="hide-sm">{s.constraints.length}</td>
              <TimeCell time={s.updatedAt} />
            </tr>
          ))}
        </Table>
      )}
    </ListPage>
  );
}

function CreateSegmentDialog({ open, onOpenChange, namespace }: CreateDialogProps) {
  const [matchType, setMatchType] = useState<MatchType>('ALL_MATCH_TYPE');
  return (
    <CreateDialog
      kind="segment"
      open={open}
      onOpenChange={onOpenChange}
      namespace={namespace}
      keyHint="Letters, digits, - _ , only; cannot change later."
      create={(input) => segmentsApi.create(namespace, { ...input, matchType })}
      onReset={() => setMatchType('ALL_MATCH_TYPE')}
      fieldsAfter={<MatchTypeChoice value={matchType} onChange={setMatchType} />}
    />
  );
}

const MATCH_TYPES = [
  {
    value: 'ALL_MATCH_TYPE',
    label: 'All constraints pass',
    detail: 'Every condition must hold (AND).',
  },
  {
    value: 'ANY_MATCH_TYPE',
    label: 'Any constraint passes',
    detail: 'One condition is enough (OR).',
  },
] as const;

export function MatchTypeChoice({
  value,
  onChange,
  disabled,
}: {
  value: MatchType;
  onChange: (m: MatchType) => void;
  disabled?: boolean;
}) {
  return (
    <ChoiceGroup
      legend="Match when"
      name="matchType"
      value={value}
      onChange={onChange}
      options={MATCH_TYPES}
      disabled={disabled}
    />
  );
}
