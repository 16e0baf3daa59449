import * as Tabs from '@radix-ui/react-tabs';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { evaluation, flags as flagsApi } from '../api/endpoints';
import { Icon } from '../components/icons';
import { EmptyState, ErrorPanel, Field, PageHead } from '../components/ui';
import {
  contextToJson,
  contextToRows,
  jsonToContext,
  newRow,
  rowsToContext,
  type ContextRow,
} from '../lib/context';
import { searchWords, matchesSearch } from '../lib/flag-list';
import { useNamespace } from '../namespace';
import { Explanation } from './explanation';

export function ConsolePage() {
  const namespace = useNamespace();
  const [params, setParams] = useSearchParams();
  const flags = useQuery({
    queryKey: ['flags', namespace],
    queryFn: () => flagsApi.list(namespace),
  });
  const [flagKey, setFlagKey] = useState(params.get('flag') ?? '');
  const [entityId, setEntityId] = useState(params.get('entity') ?? '');
  const [mode, setMode] = useState<'rows' | 'json'>('rows');
  const [rows, setRows] = useState<ContextRow[]>([newRow()]);
  const changeRow = (id: ContextRow['id'], change: Partial<ContextRow>) =>
    setRows(rows.map((r) => (r.id === id ? { ...r, ...change } : r)));
  const [json, setJson] = useState('{\n  \n}');
  const [errors, setErrors] = useState<{
    flag?: string;
    entity?: string;
    context?: string;
    row?: number;
  }>({});
  const run = useMutation({ mutationFn: evaluation.explain });

  const suggestions = useMemo(() => {
    const words = searchWords(flagKey);
    return (flags.data?.flags ?? []).filter((f) => matchesSearch(f, words)).slice(0, 100);
  }, [flags.data, flagKey]);
  const known = flags.data?.flags.find((f) => f.key === flagKey);

  const switchMode = (next: string) => {
    // Carry the context across, so nothing typed is lost when switching views.
    if (next === 'json') {
      const r = rowsToContext(rows);
      if (r.ok) setJson(contextToJson(r.context));
    } else {
      const r = jsonToContext(json);
      if (r.ok) setRows(contextToRows(r.context));
    }
    setMode(next as 'rows' | 'json');
  };

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const context = mode === 'rows' ? rowsToContext(rows) : jsonToContext(json);
    const next: typeof errors = {};
    if (flagKey.trim() === '') next.flag = 'Choose a flag.';
    if (!context.ok) {
      next.context = context.error;
      next.row = context.row;
    }
    setErrors(next);
    if (Object.keys(next).length > 0 || !context.ok) return;
    setParams(
      (p) => {
        p.set('flag', flagKey.trim());
        if (entityId) p.set('entity', entityId);
        else p.delete('entity');
        return p;
      },
      { replace: true },
    );
    run.mutate({
      namespaceKey: namespace,
      flagKey: flagKey.trim(),
      entityId,
      context: context.context,
    });
  };

  // A link with ?flag=…&entity=… (from a flag's page, or shared) shows its answer at once.
  const linked = useRef(
    params.get('flag') ? { flag: params.get('flag') ?? '', entity: entityId } : undefined,
  );
  const { mutate } = run;
  useEffect(() => {
    const from = linked.current;
    if (!from) return;
    linked.current = undefined;
    mutate({ namespaceKey: namespace, flagKey: from.flag, entityId: from.entity, context: {} });
  }, [mutate, namespace]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
  };

  return (
    <>
      <PageHead
        title="Evaluation console"
        subtitle="What an entity gets from a flag, exactly as the evaluation API answers, and why."
      />
      <div className="console">
        <form
          className="card card-body form"
          onSubmit={submit}
          onKeyDown={onKeyDown}
          noValidate
          aria-label="Evaluation request"
        >
          <Field
            label="Flag"
            error={errors.flag}
            hint={
              known
                ? `${known.name} · ${known.type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant'} · ${known.enabled ? 'enabled' : 'disabled'}`
                : undefined
            }
          >
            {(a) => (
              <>
                <input
                  {...a}
                  className="input mono"
                  list="console-flags"
                  autoComplete="off"
                  value={flagKey}
                  placeholder="Type to search flags…"
                  onChange={(e) => setFlagKey(e.target.value)}
                />
                <datalist id="console-flags">
                  {suggestions.map((f) => (
                    <option key={f.key} value={f.key}>
                      {f.name}
                    </option>
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field
            label="Entity ID"
            error={errors.entity}
            hint="The id the flag buckets on, such as a user id."
          >
            {(a) => (
              <input
                {...a}
                className="input mono"
                value={entityId}
                onChange={(e) => setEntityId(e.target.value)}
                placeholder="user-123"
              />
            )}
          </Field>
          <div className="field">
            <span className="label" id="ctx-label">
              Context
            </span>
            <Tabs.Root value={mode} onValueChange={switchMode}>
              <Tabs.List
                aria-labelledby="ctx-label"
                className="btn-row"
                style={{ marginBottom: 8 }}
              >
                <Tabs.Trigger value="rows" className="btn small">
                  Key / value
                </Tabs.Trigger>
                <Tabs.Trigger value="json" className="btn small">
                  JSON
                </Tabs.Trigger>
              </Tabs.List>
              <Tabs.Content value="rows" className="stack" style={{ gap: 6 }}>
                {rows.map((row, index) => (
                  <div className="kv-row" key={row.id}>
                    <input
                      className="input mono"
                      aria-label={`Context key ${index + 1}`}
                      aria-invalid={errors.row === index}
                      value={row.key}
                      placeholder="key"
                      onChange={(e) => changeRow(row.id, { key: e.target.value })}
                    />
                    <input
                      className="input mono"
                      aria-label={`Context value ${index + 1}`}
                      value={row.value}
                      placeholder="value"
                      onChange={(e) => changeRow(row.id, { value: e.target.value })}
                    />
                    <button
                      type="button"
                      className="btn ghost icon"
                      aria-label={`Remove context row ${index + 1}`}
                      onClick={() =>
                        setRows(
                          rows.length === 1 ? [newRow()] : rows.filter((r) => r.id !== row.id),
                        )
                      }
                    >
                      <Icon name="close" />
                    </button>
                  </div>
                ))}
                <div>
                  <button
                    type="button"
                    className="btn small"
                    onClick={() => setRows([...rows, newRow()])}
                  >
                    <Icon name="plus" /> Add property
                  </button>
                </div>
              </Tabs.Content>
              <Tabs.Content value="json">
                <textarea
                  className="input mono"
                  aria-label="Context as JSON"
                  aria-invalid={errors.context !== undefined}
                  rows={8}
                  spellCheck={false}
                  value={json}
                  onChange={(e) => setJson(e.target.value)}
                />
              </Tabs.Content>
            </Tabs.Root>
            {errors.context ? (
              <span className="error" role="alert">
                <Icon name="alert" size={14} style={{ marginTop: 3 }} /> {errors.context}
              </span>
            ) : null}
          </div>
          <div className="btn-row">
            <button type="submit" className="btn primary" disabled={run.isPending}>
              <Icon name="play" /> {run.isPending ? 'Evaluating…' : 'Evaluate'}
            </button>
            <span className="muted">
              <kbd>Ctrl</kbd> + <kbd>Enter</kbd>
            </span>
          </div>
        </form>
        <section className="card" aria-labelledby="result-h" aria-live="polite">
          <div className="section-head">
            <h2 id="result-h">Result</h2>
            {known ? (
              <Link
                to={`/namespaces/${encodeURIComponent(namespace)}/flags/${encodeURIComponent(known.key)}`}
              >
                Open flag
              </Link>
            ) : null}
          </div>
          <div className="card-body">
            {run.isError ? (
              <ErrorPanel error={run.error} />
            ) : run.data ? (
              <Explanation response={run.data} />
            ) : (
              <EmptyState icon="console" title="Nothing evaluated yet">
                Choose a flag, type an entity id and some context, then Evaluate.
              </EmptyState>
            )}
          </div>
        </section>
      </div>
    </>
  );
}
