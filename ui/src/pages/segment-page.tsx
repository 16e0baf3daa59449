import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { segments as segmentsApi, constraints as constraintsApi } from '../api/endpoints';
import type { Constraint, MatchType, Segment } from '../api/types';
import { GuardedButton } from '../components/buttons';
import { DetailPage, DetailsSection } from '../components/detail-page';
import { EditableList } from '../components/editable-list';
import { Icon } from '../components/icons';
import { useToast } from '../components/toast';
import { EmptyState, PageHead, Section } from '../components/ui';
import { useSubmit } from '../forms';
import { describeConstraint, TYPE_LABELS } from '../lib/constraints';
import { ConstraintDialog } from './constraint-dialog';
import { MatchTypeChoice } from './segments-page';

/** What each part of a segment's page is given. */
interface SegmentSectionProps {
  segment: Segment;
  namespace: string;
  readOnly?: string;
}

export function SegmentPage() {
  return (
    <DetailPage
      kind="segment"
      get={segmentsApi.get}
      remove={segmentsApi.remove}
      deleteWarning={() =>
        'A segment used by a rule or rollout cannot be deleted: remove those first. Its constraints are deleted with it.'
      }
    >
      {(segment, { namespace, readOnly, crumbs, deleteButton }) => (
        <>
          <PageHead
            crumbs={crumbs}
            title={segment.name || segment.key}
            subtitle={<span className="mono">{segment.key}</span>}
            actions={deleteButton}
          />
          <div className="grid-2">
            <SegmentSettings segment={segment} namespace={namespace} readOnly={readOnly} />
            <Constraints segment={segment} namespace={namespace} readOnly={readOnly} />
          </div>
        </>
      )}
    </DetailPage>
  );
}

function SegmentSettings({ segment, namespace, readOnly }: SegmentSectionProps) {
  const client = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(segment.name);
  const [description, setDescription] = useState(segment.description);
  const [matchType, setMatchType] = useState<MatchType>(segment.matchType);
  const form = useSubmit({ name: 'name' });
  useEffect(() => {
    setName(segment.name);
    setDescription(segment.description);
    setMatchType(segment.matchType);
  }, [segment]);
  const dirty =
    name !== segment.name || description !== segment.description || matchType !== segment.matchType;
  const submit = async () => {
    const ok = await form.run(
      async () => {
        const updated = await segmentsApi.update(namespace, {
          key: segment.key,
          name,
          description,
          matchType,
        });
        client.setQueryData(['segment', namespace, segment.key], updated);
        void client.invalidateQueries({ queryKey: ['segments', namespace] });
      },
      { name: name.trim() === '' ? 'Enter a name.' : undefined },
    );
    if (ok) toast('Segment saved');
  };
  return (
    <DetailsSection
      id="seg-settings-h"
      onSubmit={submit}
      form={form}
      name={name}
      onNameChange={setName}
      description={description}
      onDescriptionChange={setDescription}
      dirty={dirty}
      readOnly={readOnly}
    >
      <MatchTypeChoice
        value={matchType}
        onChange={setMatchType}
        disabled={readOnly !== undefined}
      />
    </DetailsSection>
  );
}

function Constraints({ segment, namespace, readOnly }: SegmentSectionProps) {
  const client = useQueryClient();
  const toast = useToast();
  const [editing, setEditing] = useState<Constraint | 'new'>();
  return (
    <Section
      id="constraints-h"
      title="Constraints"
      intro={
        segment.matchType === 'ANY_MATCH_TYPE'
          ? 'An entity matches when any one passes.'
          : 'An entity matches when all pass.'
      }
      action={
        <GuardedButton className="btn small" onClick={() => setEditing('new')} readOnly={readOnly}>
          <Icon name="plus" /> Add constraint
        </GuardedButton>
      }
    >
      <EditableList
        items={segment.constraints}
        itemKey={(c) => c.id}
        what={(c) => `constraint on ${c.property}`}
        readOnly={readOnly}
        render={(c) => (
          <>
            <span className="item-title">
              <span className="badge">{TYPE_LABELS[c.type]}</span>
              <span className="mono">{describeConstraint(c)}</span>
            </span>
            {c.description ? <span className="item-sub">{c.description}</span> : null}
          </>
        )}
        empty={
          <EmptyState icon="segment" title="No constraints">
            A segment without constraints matches every entity.
          </EmptyState>
        }
        editing={editing}
        onEditingChange={setEditing}
        dialog={(constraint, onClose) => (
          <ConstraintDialog
            onClose={onClose}
            namespace={namespace}
            segmentKey={segment.key}
            constraint={constraint}
          />
        )}
        removeTitle={() => 'Delete this constraint?'}
        confirmLabel="Delete constraint"
        onRemove={async (c) => {
          await constraintsApi.remove(namespace, segment.key, c.id);
          await client.invalidateQueries({ queryKey: ['segment', namespace, segment.key] });
          void client.invalidateQueries({ queryKey: ['segments', namespace] });
          toast('Constraint deleted');
        }}
        removal={(c) => (
          <>{c ? <code>{describeConstraint(c)}</code> : null} will no longer be checked.</>
        )}
      />
    </Section>
  );
}
