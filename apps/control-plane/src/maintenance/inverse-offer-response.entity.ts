import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { FrameworkEntity } from '../frameworks/framework.entity';

export enum InverseOfferStatus {
  UNKNOWN = 'UNKNOWN',
  ACCEPT = 'ACCEPT',
  DECLINE = 'DECLINE',
}

/** A framework's latest answer to the inverse offer for a machine going into maintenance. */
@Entity('inverse_offer_responses')
export class InverseOfferResponseEntity {
  @PrimaryColumn('text')
  hostname!: string;

  @PrimaryColumn('text')
  ip!: string;

  @PrimaryColumn('text')
  frameworkId!: string;

  @ManyToOne(() => FrameworkEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'framework_id' })
  framework?: FrameworkEntity;

  @Column({ type: 'enum', enum: InverseOfferStatus, enumName: 'inverse_offer_status' })
  status!: InverseOfferStatus;

  @Column('timestamptz')
  updatedAt!: Date;
}
