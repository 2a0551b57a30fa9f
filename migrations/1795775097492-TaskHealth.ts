import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TaskHealth1795775097492 implements MigrationInterface {
  name = 'TaskHealth1795775097492';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tasks" ADD "healthy" boolean`);
    await queryRunner.query(`ALTER TABLE "tasks" ADD "check_status" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "check_status"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP COLUMN "healthy"`);
  }
}
