import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { segments as segmentsApi } from '../api/endpoints';
import type { MatchType } from '../api/types';
import { GuardedButton } from '../components/buttons';
import { CreateDialog } from '../components/create-dialog';
import { ChoiceGroup } from '../components/form-fields';
import { Icon } from '../components/icons';
import { EmptyState, ErrorPanel, LoadingRows, PageHead } from '../components/ui';
import { relativeTime } from '../lib/datetime';
import { searchWords } from '../lib/flag-list';
import { useNamespace } from '../namespace';
import { useReadOnly } from '../session';

export function SegmentsPage() {
  const namespace = useNamespace();
  const readOnly = useReadOnly();
  const [creating, setCreating] = useState(false);
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
    <>
      <PageHead
        title="Segments"
        subtitle="Groups of entities, described by constraints on their context."
        actions={
          <GuardedButton
            className="btn primary"
            onClick={() => setCreating(true)}
            readOnly={readOnly}
          >
            <Icon name="plus" /> New segment
          </GuardedButton>
        }
      />
      {query.isError ? <ErrorPanel error={query.error} retry={() => void query.refetch()} /> : null}
      <section className="card" aria-label="Segments">
        {all.length > 0 ? (
          <div className="toolbar" role="search">
            <label className="search">
              <span className="sr-only">Search segments</span>
              <input
                className="input"
                type="search"
                placeholder="Search by key or name…"
                value={search}
                onChange={(e) => setSearch(e.target.value)}
              />
            </label>
          </div>
        ) : null}
        {query.isPending ? (
          <LoadingRows label="Loading segments" />
        ) : all.length === 0 ? (
          <EmptyState
            icon="segment"
            title="No segments yet"
            actions={
              <GuardedButton
                className="btn primary"
                onClick={() => setCreating(true)}
                readOnly={readOnly}
              >
                <Icon name="plus" /> Create a segment
              </GuardedButton>
            }
          >
            Segments such as “beta testers” or “customers in France” let rules and rollouts target
            people.
          </EmptyState>
        ) : shown.length === 0 ? (
          <EmptyState icon="search" title="No segment matches">
            Nothing has “{search}” in its key or name.
          </EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Segment</th>
                  <th scope="col">Match</th>
                  <th scope="col" className="hide-sm">
                    Constraints
                  </th>
                  <th scope="col" className="hide-sm">
                    Updated
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((s) => (
                  <tr key={s.key}>
                    <td className="primary-cell">
                      <Link to={`${nsLink}/segments/${encodeURIComponent(s.key)}`}>
                        {s.name || s.key}
                      </Link>
                      <div className="secondary mono">{s.key}</div>
                    </td>
                    <td>
                      <span className="badge">
                        {s.matchType === 'ANY_MATCH_TYPE' ? 'Any' : 'All'}
                      </span>
                    </td>
                    <td className="hide-sm">{s.constraints.length}</td>
                    <td className="hide-sm secondary" title={s.updatedAt}>
                      {relativeTime(s.updatedAt)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <CreateSegmentDialog open={creating} onOpenChange={setCreating} namespace={namespace} />
    </>
  );
}

function CreateSegmentDialog({
  open,
  onOpenChange,
  namespace,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  namespace: string;
}) {
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
