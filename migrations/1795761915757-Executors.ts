import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Executors1795761915757 implements MigrationInterface {
  name = 'Executors1795761915757';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TYPE "public"."executor_state" AS ENUM('RUNNING', 'ENDED')`);
    await queryRunner.query(
      `CREATE TABLE "executors" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "agent_id" text NOT NULL, "framework_id" text NOT NULL, "executor_id" text NOT NULL, "spec" jsonb NOT NULL, "role" text NOT NULL, "resources" jsonb NOT NULL, "state" "public"."executor_state" NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "ended_at" TIMESTAMP WITH TIME ZONE, "end_reason" text, "exit_status" jsonb, CONSTRAINT "PK_c3bbfed7eccc37f7bbff0e25bd1" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_executors_running" ON "executors"  ("agent_id", "framework_id", "executor_id") WHERE "state" = 'RUNNING'`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_774cb6d487e25002b3409d0a22" ON "executors"  ("framework_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_a96a2c1945e3a2d6e1642e3d2f" ON "executors"  ("agent_id") `);
    await queryRunner.query(
      `ALTER TABLE "executors" ADD CONSTRAINT "FK_a96a2c1945e3a2d6e1642e3d2f6" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "executors" ADD CONSTRAINT "FK_774cb6d487e25002b3409d0a22d" FOREIGN KEY ("framework_id") REFERENCES "frameworks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Fenced as every table the master writes: a deposed leader's write is refused (LeadershipTerms).
    await queryRunner.query(
      `CREATE TRIGGER "fence_executors" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "executors" FOR EACH STATEMENT EXECUTE FUNCTION arbiter_fence()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS "fence_executors" ON "executors"`);
    await queryRunner.query(`ALTER TABLE "executors" DROP CONSTRAINT "FK_774cb6d487e25002b3409d0a22d"`);
    await queryRunner.query(`ALTER TABLE "executors" DROP CONSTRAINT "FK_a96a2c1945e3a2d6e1642e3d2f6"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_a96a2c1945e3a2d6e1642e3d2f"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_774cb6d487e25002b3409d0a22"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_executors_running"`);
    await queryRunner.query(`DROP TABLE "executors"`);
    await queryRunner.query(`DROP TYPE "public"."executor_state"`);
  }
}
