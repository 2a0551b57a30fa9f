import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PrincipalEntity } from './principal.entity';

/** A bearer token, stored only as the SHA-256 of its (high-entropy) value. */
@Entity('api_tokens')
@Index(['principalId'])
export class ApiTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('uuid')
  principalId!: string;

  @ManyToOne(() => PrincipalEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'principal_id' })
  principal?: PrincipalEntity;

  @Column('text')
  name!: string;

  /** Hex SHA-256 of the token. */
  @Column('char', { length: 64, unique: true })
  tokenHash!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  expiresAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  revokedAt!: Date | null;
}
