import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The unique (rollout_segment_id, namespace_key, segment_key) doubles as the key. */
@Entity('rollout_segment_references')
export class RolloutSegmentReferenceEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  rollout_segment_id!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  namespace_key!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  segment_key!: string;

  /** Where the segment came in the request: Vexil returns segment keys in the order given. */
  @Column({ type: 'integer', default: 0 })
  position!: number;
}
