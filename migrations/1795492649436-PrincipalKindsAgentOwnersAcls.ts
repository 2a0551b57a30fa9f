import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Principal kinds replace the admin flag (an admin USER becomes ADMIN, another USER an
 * OPERATOR, a SERVICE an AGENT: the only service principal so far is the local agent's); agents
 * remember the principal that registered them and how they isolate tasks; ACLs get a table.
 */
export class PrincipalKindsAgentOwnersAcls1795492649436 implements MigrationInterface {
  name = 'PrincipalKindsAgentOwnersAcls1795492649436';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "acl_documents" ("id" text NOT NULL, "document" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_by" text NOT NULL, CONSTRAINT "PK_87a342ec07408de4abbfe0926d6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`ALTER TABLE "agents" ADD "principal" text`);
    await queryRunner.query(`ALTER TABLE "agents" ADD "isolation" jsonb`);
    await queryRunner.query(`ALTER TYPE "public"."principal_kind" RENAME TO "principal_kind_old"`);
    await queryRunner.query(`CREATE TYPE "public"."principal_kind" AS ENUM('ADMIN', 'OPERATOR', 'VIEWER', 'FRAMEWORK', 'AGENT')`);
    await queryRunner.query(
      `ALTER TABLE "principals" ALTER COLUMN "kind" TYPE "public"."principal_kind" USING (CASE WHEN "is_admin" THEN 'ADMIN' WHEN "kind"::text = 'USER' THEN 'OPERATOR' ELSE 'AGENT' END)::"public"."principal_kind"`,
    );
    await queryRunner.query(`DROP TYPE "public"."principal_kind_old"`);
    await queryRunner.query(`ALTER TABLE "principals" DROP COLUMN "is_admin"`);
    await queryRunner.query(`ALTER TABLE "principals" ADD "description" text NOT NULL DEFAULT ''`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "principals" DROP COLUMN "description"`);
    await queryRunner.query(`ALTER TABLE "principals" ADD "is_admin" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`UPDATE "principals" SET "is_admin" = ("kind" = 'ADMIN')`);
    await queryRunner.query(`ALTER TABLE "principals" ALTER COLUMN "is_admin" DROP DEFAULT`);
    await queryRunner.query(`CREATE TYPE "public"."principal_kind_old" AS ENUM('USER', 'SERVICE')`);
    await queryRunner.query(
      `ALTER TABLE "principals" ALTER COLUMN "kind" TYPE "public"."principal_kind_old" USING (CASE WHEN "kind" IN ('ADMIN', 'OPERATOR', 'VIEWER') THEN 'USER' ELSE 'SERVICE' END)::"public"."principal_kind_old"`,
    );
    await queryRunner.query(`DROP TYPE "public"."principal_kind"`);
    await queryRunner.query(`ALTER TYPE "public"."principal_kind_old" RENAME TO "principal_kind"`);
    await queryRunner.query(`ALTER TABLE "agents" DROP COLUMN "isolation"`);
    await queryRunner.query(`ALTER TABLE "agents" DROP COLUMN "principal"`);
    await queryRunner.query(`DROP TABLE "acl_documents"`);
  }
}
