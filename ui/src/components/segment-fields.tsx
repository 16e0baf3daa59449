import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { segments as segmentsApi } from '../api/endpoints';
import type { SegmentOperator } from '../api/types';
import { SegmentPicker } from './segment-picker';
import { Field, LoadingRows } from './ui';

const segmentsPath = (namespace: string) => `/namespaces/${encodeURIComponent(namespace)}/segments`;

/** The segments a rule or rollout targets, each a link, joined by their operator. */
export function SegmentLinks({
  namespace,
  keys,
  operator,
}: {
  namespace: string;
  keys: string[];
  operator?: SegmentOperator;
}) {
  return keys.map((s, i) => (
    <span key={s} className="inline">
      {i > 0 ? (
        <span className="badge">{operator === 'AND_SEGMENT_OPERATOR' ? 'AND' : 'OR'}</span>
      ) : null}
      <Link className="mono" to={`${segmentsPath(namespace)}/${encodeURIComponent(s)}`}>
        {s}
      </Link>
    </span>
  ));
}

/** Chooses the segments of a namespace, and how they combine; or says there are none yet. */
export function SegmentsField({
  namespace,
  error,
  hint,
  selected,
  onChange,
  operator,
  onOperatorChange,
}: {
  namespace: string;
  error?: string;
  hint?: string;
  selected: string[];
  onChange: (keys: string[]) => void;
  operator: SegmentOperator;
  onOperatorChange: (operator: SegmentOperator) => void;
}) {
  const segments = useQuery({
    queryKey: ['segments', namespace],
    queryFn: () => segmentsApi.list(namespace),
  });
  return (
    <Field label="Segments" error={error} hint={hint}>
      {(a) =>
        segments.isPending ? (
          <LoadingRows rows={2} />
        ) : (segments.data?.segments.length ?? 0) === 0 ? (
          <p className="muted" id={a.id}>
            This namespace has no segments yet. <Link to={segmentsPath(namespace)}>Create one</Link>{' '}
            first.
          </p>
        ) : (
          <SegmentPicker
            id={a.id}
            segments={segments.data?.segments ?? []}
            selected={selected}
            onChange={onChange}
            operator={operator}
            onOperatorChange={onOperatorChange}
            error={a['aria-invalid']}
            describedBy={a['aria-describedby']}
          />
        )
      }
    </Field>
  );
}
