import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EndedTaskIndex1795460887692 implements MigrationInterface {
  name = 'EndedTaskIndex1795460887692';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_tasks_ended" ON "tasks"  ("updated_at") WHERE "state" IN ('FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_tasks_ended"`);
  }
}
