import { useState } from 'react';
import type { Segment, SegmentOperator } from '../api/types';

/** Picks one or more segments; with two or more, whether all (AND) or any (OR) must match. */
export function SegmentPicker({
  id,
  segments,
  selected,
  onChange,
  operator,
  onOperatorChange,
  error,
  describedBy,
}: {
  id: string;
  segments: Segment[];
  selected: string[];
  onChange: (keys: string[]) => void;
  operator: SegmentOperator;
  onOperatorChange: (op: SegmentOperator) => void;
  error?: boolean;
  describedBy?: string;
}) {
  const [filter, setFilter] = useState('');
  const words = filter.toLowerCase();
  const shown = segments.filter(
    (s) =>
      selected.includes(s.key) ||
      s.key.toLowerCase().includes(words) ||
      s.name.toLowerCase().includes(words),
  );
  const toggle = (key: string, on: boolean) =>
    onChange(on ? [...selected, key] : selected.filter((k) => k !== key));
  return (
    <div className="stack" style={{ gap: 8 }}>
      {segments.length > 8 ? (
        <input
          id={id}
          className="input"
          type="search"
          placeholder="Filter segments…"
          aria-label="Filter segments"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      ) : null}
      <div
        role="group"
        aria-labelledby={`${id}-label`}
        aria-describedby={describedBy}
        className="card"
        style={{
          maxHeight: 200,
          overflowY: 'auto',
          padding: '4px 0',
          borderColor: error ? 'var(--danger)' : undefined,
        }}
      >
        <span id={`${id}-label`} className="sr-only">
          Segments
        </span>
        {shown.map((s, index) => (
          <label
            key={s.key}
            className="inline"
            style={{ display: 'flex', padding: '4px 12px', cursor: 'pointer' }}
          >
            <input
              type="checkbox"
              id={index === 0 && segments.length <= 8 ? id : undefined}
              checked={selected.includes(s.key)}
              onChange={(e) => toggle(s.key, e.target.checked)}
            />
            <span>{s.name}</span>
            <span className="muted mono" style={{ fontSize: '0.8rem' }}>
              {s.key}
            </span>
          </label>
        ))}
        {shown.length === 0 ? (
          <p className="muted" style={{ padding: '4px 12px', margin: 0 }}>
            No segment matches.
          </p>
        ) : null}
      </div>
      {selected.length > 1 ? (
        <fieldset className="inline" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="sr-only">How the segments combine</legend>
          <span className="muted">Match</span>
          <label className="inline">
            <input
              type="radio"
              name={`${id}-op`}
              checked={operator === 'OR_SEGMENT_OPERATOR'}
              onChange={() => onOperatorChange('OR_SEGMENT_OPERATOR')}
            />
            any segment (OR)
          </label>
          <label className="inline">
            <input
              type="radio"
              name={`${id}-op`}
              checked={operator === 'AND_SEGMENT_OPERATOR'}
              onChange={() => onOperatorChange('AND_SEGMENT_OPERATOR')}
            />
            all segments (AND)
          </label>
        </fieldset>
      ) : null}
    </div>
  );
}
