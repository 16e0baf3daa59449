import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('constraints')
export class ConstraintEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 255, default: 'default' })
  namespace_key!: string;

  @Column({ type: 'varchar', length: 255 })
  segment_key!: string;

  /** flipt.ComparisonType number. */
  @Column({ type: 'integer', default: 0 })
  type!: number;

  @Column({ type: 'varchar', length: 255 })
  property!: string;

  @Column({ type: 'varchar', length: 255 })
  operator!: string;

  @Column({ type: 'text' })
  value!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
