import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Column types here describe the schema; the tables themselves are created by the hand-written
 * migrations (per dialect), and the store reads and writes them with explicit SQL so that
 * microsecond timestamps and JSON text survive byte for byte.
 */
@Entity('namespaces')
export class NamespaceEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'boolean', default: false })
  protected!: boolean;

  /** Bumped in the same transaction as every write to the namespace. */
  @Column({ type: 'bigint', default: 1 })
  version!: string;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;

  @Column({ type: Date, precision: 6, nullable: true })
  state_modified_at!: string | null;
}
