import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UnacknowledgedStatusUpdates1795431005691 implements MigrationInterface {
  name = 'UnacknowledgedStatusUpdates1795431005691';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_task_status_updates_unacknowledged" ON "task_status_updates"  ("id") WHERE "acknowledged_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_task_status_updates_unacknowledged"`);
  }
}
