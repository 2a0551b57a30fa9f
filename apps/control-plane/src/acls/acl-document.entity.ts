import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The cluster's ACLs, in Mesos's JSON format: one row, replaced as a whole. */
@Entity('acl_documents')
export class AclDocumentEntity {
  /** Always 'current'. */
  @PrimaryColumn('text')
  id!: string;

  @Column('jsonb')
  document!: Record<string, unknown>;

  @Column('timestamptz')
  updatedAt!: Date;

  @Column('text')
  updatedBy!: string;
}
