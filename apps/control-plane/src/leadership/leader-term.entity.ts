import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One leadership term: the replica that won it and when. The current term is the one with the
 * highest epoch; the master's writes carry their term's epoch and are refused once a later term
 * has begun (see the leadership migration's fence).
 */
@Entity('leader_terms')
export class LeaderTermEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  epoch!: string;

  /** The replica's id (host and process, unique per start). */
  @Column('text')
  replica!: string;

  /** The URL the replica advertises (ARBITER_ADVERTISE_URL). */
  @Column('text')
  url!: string;

  @Column('timestamptz', { default: () => 'now()' })
  startedAt!: Date;
}
