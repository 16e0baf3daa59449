import { useId, type ReactNode } from 'react';
import { Icon, type IconName } from './icons';

export function Field({
  label,
  hint,
  error,
  children,
  id: givenId,
}: {
  label: string;
  hint?: ReactNode;
  error?: string;
  /** Receives the ids to wire the control to its label, hint and error. */
  children: (props: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby': string | undefined;
  }) => ReactNode;
  id?: string;
}) {
  const generated = useId();
  const id = givenId ?? generated;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {error ? (
        <span className="error" id={errorId} role="alert">
          <Icon name="alert" size={14} style={{ marginTop: 3, flex: 'none' }} />
          {error}
        </span>
      ) : null}
      {hint ? (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

export function EmptyState({
  icon,
  title,
  children,
  actions,
}: {
  icon: IconName;
  title: string;
  children?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="empty">
      <Icon name={icon} size={32} />
      <h2>{title}</h2>
      {children ? <div>{children}</div> : null}
      {actions ? <div className="btn-row">{actions}</div> : null}
    </div>
  );
}

export function LoadingRows({ rows = 4, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    <div className="card-body stack" aria-busy="true" aria-label={label} role="status">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" style={{ width: `${90 - i * 12}%` }} />
      ))}
    </div>
  );
}

export function ErrorPanel({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="banner danger" role="alert">
      <Icon name="alert" style={{ marginTop: 3, flex: 'none' }} />
      <div className="spacer">{message}</div>
      {retry ? (
        <button type="button" className="btn small" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function PageHead({
  title,
  subtitle,
  crumbs,
  actions,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  crumbs?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <header className="page-head">
      <div>
        {crumbs ? (
          <nav className="breadcrumbs" aria-label="Breadcrumb">
            {crumbs}
          </nav>
        ) : null}
        <h1>{title}</h1>
        {subtitle ? <p className="subtitle">{subtitle}</p> : null}
      </div>
      {actions ? <div className="btn-row">{actions}</div> : null}
    </header>
  );
}

/**
 * A card on a page, named by its heading; an intro line under the heading, and an action
 * (an Add button, say) beside it.
 */
export function Section({
  id,
  title,
  intro,
  action,
  children,
}: {
  /** The heading's id, which names the section. */
  id: string;
  title: string;
  intro?: ReactNode;
  action?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="card section" aria-labelledby={id}>
      <div className="section-head">
        {intro === undefined ? (
          <h2 id={id}>{title}</h2>
        ) : (
          <div>
            <h2 id={id}>{title}</h2>
            <p>{intro}</p>
          </div>
        )}
        {action}
      </div>
      {children}
    </section>
  );
}
