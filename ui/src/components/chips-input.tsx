import { useState, type KeyboardEvent } from 'react';

/** A list value (isoneof / isnotoneof): Enter or comma adds an item, Backspace removes the last. */
export function ChipsInput({
  id,
  items,
  onChange,
  invalid,
  describedBy,
  placeholder,
  disabled,
}: {
  id: string;
  items: string[];
  onChange: (items: string[]) => void;
  invalid?: boolean;
  describedBy?: string;
  placeholder?: string;
  disabled?: boolean;
}) {
  const [draft, setDraft] = useState('');
  const add = (text: string) => {
    const parts = text
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '' && !items.includes(p));
    if (parts.length > 0) onChange([...items, ...parts]);
    setDraft('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add(draft);
    } else if (event.key === 'Backspace' && draft === '' && items.length > 0) {
      onChange(items.slice(0, -1));
    }
  };
  return (
    <div className="chips" aria-invalid={invalid}>
      {items.map((item, index) => (
        <span className="chip" key={`${item}-${index}`}>
          {item}
          <button
            type="button"
            aria-label={`Remove ${item}`}
            disabled={disabled}
            onClick={() => onChange(items.filter((_, i) => i !== index))}
          >
            ×
          </button>
        </span>
      ))}
      <input
        id={id}
        value={draft}
        disabled={disabled}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        placeholder={items.length === 0 ? (placeholder ?? 'Type a value, then Enter') : ''}
        onChange={(e) => {
          if (e.target.value.includes(',')) add(e.target.value);
          else setDraft(e.target.value);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => add(draft)}
      />
    </div>
  );
}
