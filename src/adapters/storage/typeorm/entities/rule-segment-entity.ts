import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The unique (rule_id, namespace_key, segment_key) doubles as the key. */
@Entity('rule_segments')
export class RuleSegmentEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  rule_id!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  namespace_key!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  segment_key!: string;

  /** Where the segment came in the request: Vexil returns segment keys in the order given. */
  @Column({ type: 'integer', default: 0 })
  position!: number;
}
