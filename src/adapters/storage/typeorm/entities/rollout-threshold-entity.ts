import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('rollout_thresholds')
export class RolloutThresholdEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 255, default: 'default' })
  namespace_key!: string;

  @Column({ type: 'varchar', length: 255, unique: true })
  rollout_id!: string;

  @Column({ type: 'double precision', default: 0 })
  percentage!: number;

  @Column({ type: 'boolean', default: false })
  value!: boolean;
}
