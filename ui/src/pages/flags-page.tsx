import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useDeferredValue, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { flags as flagsApi } from '../api/endpoints';
import type { Flag } from '../api/types';
import { CreateFlagDialog } from './flag-forms';
import { Icon } from '../components/icons';
import {
  ListPage,
  NameCell,
  SearchBox,
  Table,
  TimeCell,
  useCreateDialog,
} from '../components/list-page';
import { Switch } from '../components/switch';
import { useToast } from '../components/toast';
import { EmptyState, LoadingRows } from '../components/ui';
import { pageOf, queryFlags, type SortDirection, type SortKey } from '../lib/flag-list';
import { messageOf } from '../lib/api-error';
import { useNamespace } from '../namespace';
import { useReadOnly } from '../session';

const PAGE_SIZE = 50;
const SORTS: Record<SortKey, string> = {
  key: 'Key',
  name: 'Name',
  updated: 'Last updated',
  created: 'Created',
};

export function FlagsPage() {
  const namespace = useNamespace();
  const readOnly = useReadOnly();
  const [params, setParams] = useSearchParams();
  const create = useCreateDialog(readOnly);
  const search = params.get('q') ?? '';
  const sort = (params.get('sort') as SortKey | null) ?? 'key';
  const direction = (params.get('dir') as SortDirection | null) ?? 'asc';
  const status = (params.get('status') as 'all' | 'enabled' | 'disabled' | null) ?? 'all';
  const page = Number(params.get('page') ?? '1');
  // Typing stays responsive at 10,000 flags: the list re-filters at lower priority.
  const deferredSearch = useDeferredValue(search);

  const query = useQuery({
    queryKey: ['flags', namespace],
    queryFn: () => flagsApi.list(namespace),
  });

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
  };

  const filtered = useMemo(
    () => queryFlags(query.data?.flags ?? [], { search: deferredSearch, sort, direction, status }),
    [query.data, deferredSearch, sort, direction, status],
  );
  const slice = pageOf(filtered, page, PAGE_SIZE);
  const total = query.data?.flags.length ?? 0;

  const sortHeader = (label: string, col: SortKey, className?: string) => (
    <SortHeader
      key={col}
      label={label}
      col={col}
      sort={sort}
      direction={direction}
      onSort={(key) =>
        update({
          sort: key,
          dir: sort === key && direction === 'asc' ? 'desc' : 'asc',
          page: undefined,
        })
      }
      className={className}
    />
  );

  return (
    <ListPage
      title="Flags"
      subtitle={
        query.data
          ? `${total.toLocaleString()} flag${total === 1 ? '' : 's'} in ${namespace}`
          : `Namespace ${namespace}`
      }
      action={create.button('New flag')}
      query={query}
      label="Flags"
      dialogs={
        <CreateFlagDialog
          open={create.open}
          onOpenChange={create.onOpenChange}
          namespace={namespace}
        />
      }
    >
      {total > 0 || search !== '' ? (
        <div className="toolbar" role="search">
          <SearchBox
            label="Search flags by key or name"
            inline
            value={search}
            onChange={(q) => update({ q, page: undefined })}
          />
          <label className="inline">
            <span className="muted">Status</span>
            <select
              className="input"
              value={status}
              onChange={(e) =>
                update({
                  status: e.target.value === 'all' ? undefined : e.target.value,
                  page: undefined,
                })
              }
            >
              <option value="all">All</option>
              <option value="enabled">Enabled</option>
              <option value="disabled">Disabled</option>
            </select>
          </label>
          <label className="inline">
            <span className="muted">Sort</span>
            <select
              className="input"
              value={`${sort}:${direction}`}
              onChange={(e) => {
                const [s, d] = e.target.value.split(':');
                update({ sort: s, dir: d, page: undefined });
              }}
            >
              {Object.entries(SORTS).flatMap(([key, label]) => [
                <option key={`${key}:asc`} value={`${key}:asc`}>
                  {label} {key === 'updated' || key === 'created' ? '(oldest first)' : '(A–Z)'}
                </option>,
                <option key={`${key}:desc`} value={`${key}:desc`}>
                  {label} {key === 'updated' || key === 'created' ? '(newest first)' : '(Z–A)'}
                </option>,
              ])}
            </select>
          </label>
        </div>
      ) : null}
      {query.isPending ? (
        <LoadingRows label="Loading flags" />
      ) : total === 0 ? (
        <EmptyState
          icon="flag"
          title="No flags yet"
          actions={create.button('Create your first flag')}
        >
          A flag turns a feature on or off, or picks a variant, for each user who asks.
        </EmptyState>
      ) : filtered.length === 0 ? (
        <EmptyState
          icon="search"
          title="No flag matches"
          actions={
            <button
              type="button"
              className="btn"
              onClick={() => update({ q: undefined, status: undefined })}
            >
              Clear filters
            </button>
          }
        >
          Nothing in {namespace} has “{search}” in its key or name
          {status !== 'all' ? ` and is ${status}` : ''}.
        </EmptyState>
      ) : (
        <>
          <Table
            caption={`Flags ${slice.from} to ${slice.to} of ${slice.total}, sorted by ${SORTS[sort]}`}
            columns={[
              sortHeader('Flag', 'key'),
              { label: 'Type', hideSm: true },
              { label: 'Enabled' },
              sortHeader('Updated', 'updated', 'hide-sm'),
            ]}
          >
            {slice.items.map((flag) => (
              <FlagRow key={flag.key} flag={flag} namespace={namespace} readOnly={readOnly} />
            ))}
          </Table>
          <Pager
            from={slice.from}
            to={slice.to}
            total={slice.total}
            page={slice.page}
            pageCount={slice.pageCount}
            onPage={(p) => update({ page: p === 1 ? undefined : String(p) })}
          />
        </>
      )}
    </ListPage>
  );
}

function SortHeader({
  label,
  col,
  sort,
  direction,
  onSort,
  className,
}: {
  label: string;
  col: SortKey;
  sort: SortKey;
  direction: SortDirection;
  onSort: (key: SortKey) => void;
  className?: string;
}) {
  const active = sort === col;
  return (
    <th
      scope="col"
      className={className}
      aria-sort={active ? (direction === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button type="button" className="th-sort" onClick={() => onSort(col)}>
        {label}
        <Icon name={active ? (direction === 'asc' ? 'up' : 'down') : 'sort'} size={12} />
      </button>
    </th>
  );
}

function FlagRow({
  flag,
  namespace,
  readOnly,
}: {
  flag: Flag;
  namespace: string;
  readOnly?: string;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const href = `/namespaces/${encodeURIComponent(namespace)}/flags/${encodeURIComponent(flag.key)}`;
  const toggle = async (enabled: boolean) => {
    // Optimistic: the switch moves at once and moves back if the service refuses.
    const key = ['flags', namespace];
    const set = (value: boolean) =>
      client.setQueryData<{ flags: Flag[] }>(key, (d) =>
        d
          ? { ...d, flags: d.flags.map((f) => (f.key === flag.key ? { ...f, enabled: value } : f)) }
          : d,
      );
    set(enabled);
    try {
      const updated = await flagsApi.update(namespace, {
        key: flag.key,
        name: flag.name,
        description: flag.description,
        enabled,
        ...(flag.defaultVariant ? { defaultVariantId: flag.defaultVariant.id } : {}),
      });
      client.setQueryData(['flag', namespace, flag.key], updated);
      toast(`${flag.key} ${enabled ? 'enabled' : 'disabled'}`);
    } catch (err) {
      set(!enabled);
      toast(`Could not change ${flag.key}: ${messageOf(err)}`, 'error');
    }
  };
  return (
    <tr>
      <NameCell href={href} name={flag.name} itemKey={flag.key} />
      <td className="hide-sm">
        <span className="badge">{flag.type === 'BOOLEAN_FLAG_TYPE' ? 'Boolean' : 'Variant'}</span>
      </td>
      <td>
        <Switch
          checked={flag.enabled}
          onCheckedChange={(v) => void toggle(v)}
          label={`Enable ${flag.key}`}
          disabled={readOnly !== undefined}
          title={readOnly}
        />
      </td>
      <TimeCell time={flag.updatedAt} />
    </tr>
  );
}

export function Pager({
  from,
  to,
  total,
  page,
  pageCount,
  onPage,
}: {
  from: number;
  to: number;
  total: number;
  page: number;
  pageCount: number;
  onPage: (page: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <span>
        {from.toLocaleString()}–{to.toLocaleString()} of {total.toLocaleString()}
      </span>
      <div className="btn-row" hidden={pageCount <= 1}>
        <button
          type="button"
          className="btn small"
          disabled={page <= 1}
          onClick={() => onPage(page - 1)}
        >
          Previous
        </button>
        <span aria-current="page">
          Page {page} of {pageCount}
        </span>
        <button
          type="button"
          className="btn small"
          disabled={page >= pageCount}
          onClick={() => onPage(page + 1)}
        >
          Next
        </button>
      </div>
    </nav>
  );
}
