import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('rollout_segments')
export class RolloutSegmentEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  rollout_id!: string;

  @Column({ type: 'boolean', default: false })
  value!: boolean;

  @Column({ type: 'integer', default: 0 })
  segment_operator!: number;
}
