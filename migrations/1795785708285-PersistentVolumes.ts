import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PersistentVolumes1795785708285 implements MigrationInterface {
  name = 'PersistentVolumes1795785708285';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "volumes" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "agent_id" text NOT NULL, "role" text NOT NULL, "persistence_id" text NOT NULL, "disk" double precision NOT NULL, "container_path" text NOT NULL, "mode" text NOT NULL, "principal" text NOT NULL, "source" jsonb, "host_path" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_f3d03a6ad79006b028d3eae9e9f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_c784791d883a31a84a1548a3b3" ON "volumes"  ("role") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_6245b0189e692d96be70dbc052" ON "volumes"  ("agent_id", "role", "persistence_id") `);
    await queryRunner.query(
      `ALTER TABLE "volumes" ADD CONSTRAINT "FK_7112ecdfaeebe239004eb170440" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "volumes" DROP CONSTRAINT "FK_7112ecdfaeebe239004eb170440"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_6245b0189e692d96be70dbc052"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_c784791d883a31a84a1548a3b3"`);
    await queryRunner.query(`DROP TABLE "volumes"`);
  }
}
