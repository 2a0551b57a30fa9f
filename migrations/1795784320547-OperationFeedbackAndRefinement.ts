import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OperationFeedbackAndRefinement1795784320547 implements MigrationInterface {
  name = 'OperationFeedbackAndRefinement1795784320547';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "operation_statuses" ("uuid" uuid NOT NULL, "framework_id" text NOT NULL, "operation_id" text NOT NULL, "type" text NOT NULL, "agent_id" text, "state" text NOT NULL, "message" text, "converted_resources" jsonb, "at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_cb8762f6631f9818204ae4da7e1" PRIMARY KEY ("uuid"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_cdc49c7176f6201115ab0e5061" ON "operation_statuses"  ("framework_id", "operation_id") `,
    );
    await queryRunner.query(`ALTER TABLE "reservations" ADD "refines" jsonb NOT NULL DEFAULT '[]'`);
    // Fenced as every table the master writes: a deposed leader's write is refused (LeadershipTerms).
    await queryRunner.query(
      `CREATE TRIGGER "fence_operation_statuses" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "operation_statuses" FOR EACH STATEMENT EXECUTE FUNCTION arbiter_fence()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS "fence_operation_statuses" ON "operation_statuses"`);
    await queryRunner.query(`ALTER TABLE "reservations" DROP COLUMN "refines"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_cdc49c7176f6201115ab0e5061"`);
    await queryRunner.query(`DROP TABLE "operation_statuses"`);
  }
}
