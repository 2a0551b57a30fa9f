import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TaskStatusUpdateUuidUnique1795414746788 implements MigrationInterface {
  name = 'TaskStatusUpdateUuidUnique1795414746788';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_95528efe893ebf23047da11999" ON "task_status_updates"  ("update_uuid") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_95528efe893ebf23047da11999"`);
  }
}
