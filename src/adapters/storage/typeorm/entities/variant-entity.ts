import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';

@Entity('variants')
@Unique('variants_namespace_key_flag_key_key_key', ['namespace_key', 'flag_key', 'key'])
export class VariantEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 255, default: 'default' })
  namespace_key!: string;

  @Column({ type: 'varchar', length: 255 })
  flag_key!: string;

  @Column({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  /** Compacted JSON text; NULL when there is none. */
  @Column({ type: 'text', nullable: true })
  attachment!: string | null;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
