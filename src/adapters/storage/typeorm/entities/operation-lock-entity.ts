import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A lease for jobs that one instance at a time should run (e.g. the token cleanup). */
@Entity('operation_lock')
export class OperationLockEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  operation!: string;

  @Column({ type: 'integer', default: 0 })
  version!: number;

  @Column({ type: Date, precision: 6, nullable: true })
  last_acquired_at!: string | null;

  @Column({ type: Date, precision: 6, nullable: true })
  acquired_until!: string | null;
}
