import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('flags')
export class FlagEntity {
  @PrimaryColumn({ type: 'varchar', length: 255, default: 'default' })
  namespace_key!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'boolean', default: false })
  enabled!: boolean;

  /** flipt.FlagType number: VARIANT 0, BOOLEAN 1. */
  @Column({ type: 'integer', default: 0 })
  type!: number;

  @Column({ type: 'varchar', length: 255, nullable: true })
  default_variant_id!: string | null;

  /** JSON object text. */
  @Column({ type: 'text', nullable: true })
  metadata!: string | null;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
