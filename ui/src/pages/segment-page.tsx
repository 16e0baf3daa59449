import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { segments as segmentsApi, constraints as constraintsApi } from '../api/endpoints';
import type { Constraint, Segment } from '../api/types';
import { GuardedButton } from '../components/buttons';
import { DetailPage, DetailsSection } from '../components/detail-page';
import { EditableList } from '../components/editable-list';
import { Icon } from '../components/icons';
import { useToast } from '../components/toast';
import { EmptyState, PageHead, Section } from '../components/ui';
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
  return (
    <DetailsSection
      id="seg-settings-h"
      kind="segment"
      namespace={namespace}
      item={segment}
      valuesOf={(s) => ({ name: s.name, description: s.description, matchType: s.matchType })}
      save={(draft) => segmentsApi.update(namespace, { key: segment.key, ...draft })}
      readOnly={readOnly}
    >
      {(draft, change) => (
        <MatchTypeChoice
          value={draft.matchType}
          onChange={(matchType) => change({ matchType })}
          disabled={readOnly !== undefined}
        />
      )}
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
