import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The last version of a deleted namespace: a namespace created again under the same key
 * continues above it, so a (namespace, version) pair never names two different contents
 * (snapshot caches and ETags are keyed by it).
 */
@Entity('namespace_tombstones')
export class NamespaceTombstoneEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ type: 'bigint' })
  version!: string;
}
