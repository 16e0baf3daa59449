import { useState } from 'react';
import { Icon } from './icons';

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="btn small"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // No clipboard permission (plain http on another host): select-and-copy still works.
          return;
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      <Icon name={copied ? 'check' : 'copy'} />
      <span aria-live="polite">{copied ? 'Copied' : label}</span>
    </button>
  );
}
