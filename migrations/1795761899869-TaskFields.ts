import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TaskFields1795761899869 implements MigrationInterface {
  name = 'TaskFields1795761899869';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tasks" ADD "labels" jsonb`);
    await queryRunner.query(`ALTER TABLE "tasks" ADD "discovery" jsonb`);
    await queryRunner.query(`ALTER TABLE "tasks" ADD "data_bytes" integer`);
    await queryRunner.query(`ALTER TABLE "tasks" ADD "kill_grace_period_seconds" double precision`);
    await queryRunner.query(`ALTER TABLE "tasks" ADD "max_completion_time_seconds" double precision`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "max_completion_time_seconds"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "kill_grace_period_seconds"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "data_bytes"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "discovery"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "labels"`);
  }
}
