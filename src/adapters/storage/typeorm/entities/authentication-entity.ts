import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('authentications')
export class AuthenticationEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  /** base64url(SHA-256(client token)); the plain token is never stored. */
  @Column({ type: 'varchar', length: 255, unique: true })
  hashed_client_token!: string;

  /** flipt.auth.Method number. */
  @Column({ type: 'integer', default: 0 })
  method!: number;

  /** JSON object text. */
  @Column({ type: 'text', nullable: true })
  metadata!: string | null;

  @Column({ type: Date, precision: 6, nullable: true })
  expires_at!: string | null;

  @Column({ type: Date, precision: 6 })
  created_at!: string;

  @Column({ type: Date, precision: 6 })
  updated_at!: string;
}
