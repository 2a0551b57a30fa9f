import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ExecutorUpdateFields1795773049301 implements MigrationInterface {
  name = 'ExecutorUpdateFields1795773049301';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "task_status_updates" ADD "executor_fields" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "task_status_updates" DROP COLUMN "executor_fields"`);
  }
}
