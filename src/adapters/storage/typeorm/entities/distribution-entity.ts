import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('distributions')
export class DistributionEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  rule_id!: string;

  @Column({ type: 'varchar', length: 255 })
  variant_id!: string;

  @Column({ type: 'double precision', default: 0 })
  rollout!: number;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
