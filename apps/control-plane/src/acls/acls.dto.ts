import { ApiProperty } from '@nestjs/swagger';

export class AclsDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "the ACLs in Mesos's JSON format: `permissive` and, per action, a list of {principals, <object>} entries",
    example: {
      permissive: false,
      register_frameworks: [{ principals: { values: ['team-a'] }, roles: { values: ['team-a', 'team-a/*'] } }],
    },
  })
  document!: Record<string, unknown>;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when they were last replaced (null: never set)' })
  updatedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'who last replaced them' })
  updatedBy!: string | null;
}
