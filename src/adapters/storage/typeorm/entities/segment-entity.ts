import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('segments')
export class SegmentEntity {
  @PrimaryColumn({ type: 'varchar', length: 255, default: 'default' })
  namespace_key!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  /** flipt.MatchType number: ALL 0, ANY 1. */
  @Column({ type: 'integer', default: 0 })
  match_type!: number;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
