import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('rollouts')
export class RolloutEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 255, default: 'default' })
  namespace_key!: string;

  @Column({ type: 'varchar', length: 255 })
  flag_key!: string;

  /** flipt.RolloutType number: SEGMENT 1, THRESHOLD 2. */
  @Column({ type: 'integer', default: 0 })
  type!: number;

  @Column({ type: 'text' })
  description!: string;

  /** Unique per flag, enforced by the store (as Flipt does), not by an index. */
  @Column({ type: 'integer', default: 1 })
  rank!: number;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
