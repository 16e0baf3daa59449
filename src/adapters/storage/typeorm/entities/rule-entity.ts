import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('rules')
export class RuleEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 255, default: 'default' })
  namespace_key!: string;

  @Column({ type: 'varchar', length: 255 })
  flag_key!: string;

  /** Not unique: Flipt accepts duplicate rule ranks. */
  @Column({ type: 'integer', default: 1 })
  rank!: number;

  /** flipt.SegmentOperator number: OR 0, AND 1. */
  @Column({ type: 'integer', default: 0 })
  segment_operator!: number;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
