import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MesosTaskStates1795552073198 implements MigrationInterface {
  name = 'MesosTaskStates1795552073198';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TYPE "public"."task_state" ADD VALUE 'KILLING'`);
    await queryRunner.query(`ALTER TYPE "public"."task_state" ADD VALUE 'DROPPED'`);
    await queryRunner.query(`ALTER TYPE "public"."task_state" ADD VALUE 'UNREACHABLE'`);
    await queryRunner.query(`ALTER TYPE "public"."task_state" ADD VALUE 'GONE'`);
    await queryRunner.query(`ALTER TYPE "public"."task_state" ADD VALUE 'GONE_BY_OPERATOR'`);
    await queryRunner.query(`ALTER TYPE "public"."task_state" ADD VALUE 'UNKNOWN'`);
    await queryRunner.query(`ALTER TYPE "public"."task_status_update_state" ADD VALUE 'KILLING'`);
    await queryRunner.query(`ALTER TYPE "public"."task_status_update_state" ADD VALUE 'DROPPED'`);
    await queryRunner.query(`ALTER TYPE "public"."task_status_update_state" ADD VALUE 'UNREACHABLE'`);
    await queryRunner.query(`ALTER TYPE "public"."task_status_update_state" ADD VALUE 'GONE'`);
    await queryRunner.query(`ALTER TYPE "public"."task_status_update_state" ADD VALUE 'GONE_BY_OPERATOR'`);
    await queryRunner.query(`ALTER TYPE "public"."task_status_update_state" ADD VALUE 'UNKNOWN'`);
    // Ended tasks (for retention) by state and age: no predicate naming the ended states.
    await queryRunner.query(`DROP INDEX "public"."IDX_tasks_ended"`);
    await queryRunner.query(`CREATE INDEX "IDX_tasks_ended" ON "tasks" ("state", "updated_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_tasks_ended"`);
    // The states the older schema lacks become their nearest older ones first.
    for (const table of ['tasks', 'task_status_updates']) {
      await queryRunner.query(`UPDATE "${table}" SET "state" = 'RUNNING' WHERE "state"::text IN ('KILLING', 'UNREACHABLE')`);
      await queryRunner.query(
        `UPDATE "${table}" SET "state" = 'LOST' WHERE "state"::text IN ('DROPPED', 'GONE', 'GONE_BY_OPERATOR', 'UNKNOWN')`,
      );
    }
    await queryRunner.query(
      `CREATE TYPE "public"."task_status_update_state_old" AS ENUM('STAGING', 'STARTING', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR')`,
    );
    await queryRunner.query(
      `ALTER TABLE "task_status_updates" ALTER COLUMN "state" TYPE "public"."task_status_update_state_old" USING "state"::"text"::"public"."task_status_update_state_old"`,
    );
    await queryRunner.query(`DROP TYPE "public"."task_status_update_state"`);
    await queryRunner.query(`ALTER TYPE "public"."task_status_update_state_old" RENAME TO "task_status_update_state"`);
    await queryRunner.query(
      `CREATE TYPE "public"."task_state_old" AS ENUM('STAGING', 'STARTING', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR')`,
    );
    await queryRunner.query(
      `ALTER TABLE "tasks" ALTER COLUMN "state" TYPE "public"."task_state_old" USING "state"::"text"::"public"."task_state_old"`,
    );
    await queryRunner.query(`DROP TYPE "public"."task_state"`);
    await queryRunner.query(`ALTER TYPE "public"."task_state_old" RENAME TO "task_state"`);
    await queryRunner.query(
      `CREATE INDEX "IDX_tasks_ended" ON "tasks" ("updated_at") WHERE "state" IN ('FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR')`,
    );
  }
}
