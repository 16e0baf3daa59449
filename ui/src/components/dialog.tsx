import * as RadixDialog from '@radix-ui/react-dialog';
import * as Alert from '@radix-ui/react-alert-dialog';
import { useState, type ReactNode } from 'react';
import { DialogActions, Form } from './form-fields';
import { Icon } from './icons';
import { messageOf } from '../lib/api-error';

export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  wide,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="overlay" />
        <RadixDialog.Content
          className={wide ? 'dialog wide' : 'dialog'}
          {...(description ? {} : { 'aria-describedby': undefined })}
        >
          <div className="dialog-head">
            <div>
              <RadixDialog.Title asChild>
                <h2>{title}</h2>
              </RadixDialog.Title>
              {description ? (
                <RadixDialog.Description asChild>
                  <p>{description}</p>
                </RadixDialog.Description>
              ) : null}
            </div>
            <RadixDialog.Close className="btn ghost icon" aria-label="Close">
              <Icon name="close" />
            </RadixDialog.Close>
          </div>
          {children}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

/**
 * A dialog holding one form: its fields are the children, then the form's error and the
 * Cancel and submit buttons. Closing it any way calls onClose.
 */
export function FormDialog({
  open = true,
  onClose,
  title,
  description,
  wide,
  onSubmit,
  form,
  error = form.formError,
  submitLabel,
  busyLabel,
  children,
}: {
  open?: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  wide?: boolean;
  onSubmit: () => Promise<void>;
  /** The form's state, from useSubmit. */
  form: { formError?: string; busy: boolean };
  /** What to show above the buttons, when not the form's own error. */
  error?: string;
  submitLabel: string;
  busyLabel?: string;
  children: ReactNode;
}) {
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => !o && onClose()}
      title={title}
      description={description}
      wide={wide}
    >
      <Form onSubmit={onSubmit}>
        {children}
        <DialogActions
          error={error}
          busy={form.busy}
          submitLabel={submitLabel}
          busyLabel={busyLabel}
          onCancel={onClose}
        />
      </Form>
    </Dialog>
  );
}

/**
 * Asks before something that cannot be undone. The action runs while the dialog stays open,
 * so a refusal from the service (a namespace that still has flags) is shown right there.
 */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  children,
  confirmLabel,
  onConfirm,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const change = (next: boolean) => {
    if (!next) setError(undefined);
    onOpenChange(next);
  };
  return (
    <Alert.Root open={open} onOpenChange={change}>
      <Alert.Portal>
        <Alert.Overlay className="overlay" />
        <Alert.Content className="dialog">
          <Alert.Title asChild>
            <h2>{title}</h2>
          </Alert.Title>
          <Alert.Description asChild>
            <div className="muted">{children}</div>
          </Alert.Description>
          {error ? (
            <p className="form-error" role="alert">
              {error}
            </p>
          ) : null}
          <div className="dialog-foot">
            <Alert.Cancel className="btn">Cancel</Alert.Cancel>
            <button
              type="button"
              className="btn danger solid"
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                setError(undefined);
                try {
                  await onConfirm();
                  change(false);
                } catch (err) {
                  setError(messageOf(err));
                } finally {
                  setBusy(false);
                }
              }}
            >
              {busy ? 'Working…' : confirmLabel}
            </button>
          </div>
        </Alert.Content>
      </Alert.Portal>
    </Alert.Root>
  );
}
