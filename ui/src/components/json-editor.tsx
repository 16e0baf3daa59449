import { lazy, Suspense } from 'react';
import type { JsonEditorProps } from './json-editor-impl';

// CodeMirror is about 400 KB: it loads only when a variant's attachment is edited.
const Editor = lazy(() => import('./json-editor-impl'));

export function JsonEditor(props: JsonEditorProps) {
  return (
    <Suspense
      fallback={
        <textarea
          className="input mono"
          id={props.id}
          value={props.value}
          aria-describedby={props.describedBy}
          aria-invalid={props.invalid}
          readOnly
          rows={6}
        />
      }
    >
      <Editor {...props} />
    </Suspense>
  );
}
