import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Offers shaped for their churn: no foreign keys, no index on a column that changes when an
 * offer closes, outstanding offers kept apart. Generated from the entities, plus two statements
 * TypeORM cannot express: the fillfactor that lets closing an offer be a heap-only update, and
 * copying the offers outstanding now into `outstanding_offers`.
 */
export class OfferStorage1795453535871 implements MigrationInterface {
  name = 'OfferStorage1795453535871';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "offers" DROP CONSTRAINT "FK_601d740f26c247aabcc531ac566"`);
    await queryRunner.query(`ALTER TABLE "offers" DROP CONSTRAINT "FK_08cbb179f4f37f4e990fd5b97ae"`);
    await queryRunner.query(`ALTER TABLE "offers" DROP CONSTRAINT "FK_4a6912e0023e8c8b084f0be54e9"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_601d740f26c247aabcc531ac56"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b6deb3407db7421562841c6e4e"`);
    await queryRunner.query(
      `CREATE TABLE "outstanding_offers" ("offer_id" uuid NOT NULL, CONSTRAINT "PK_5ba79c35259e4262cc9feb9c1f1" PRIMARY KEY ("offer_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_a3d3a5979749b7e7a7876617f5" ON "offers"  ("created_at") `);
    await queryRunner.query(`CREATE INDEX "IDX_4a6912e0023e8c8b084f0be54e" ON "offers"  ("cycle_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_cc04aa365ab872c56b240be25b" ON "offers"  ("framework_id", "created_at") `);
    await queryRunner.query(`ALTER TABLE "offers" SET (fillfactor = 50)`);
    await queryRunner.query(`INSERT INTO "outstanding_offers" ("offer_id") SELECT "id" FROM "offers" WHERE "state" = 'OUTSTANDING'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "offers" RESET (fillfactor)`);
    await queryRunner.query(`DROP INDEX "public"."IDX_cc04aa365ab872c56b240be25b"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_4a6912e0023e8c8b084f0be54e"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_a3d3a5979749b7e7a7876617f5"`);
    await queryRunner.query(`DROP TABLE "outstanding_offers"`);
    await queryRunner.query(`CREATE INDEX "IDX_b6deb3407db7421562841c6e4e" ON "offers" USING btree ("state") `);
    await queryRunner.query(`CREATE INDEX "IDX_601d740f26c247aabcc531ac56" ON "offers" USING btree ("framework_id") `);
    await queryRunner.query(
      `ALTER TABLE "offers" ADD CONSTRAINT "FK_4a6912e0023e8c8b084f0be54e9" FOREIGN KEY ("cycle_id") REFERENCES "allocation_cycles"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "offers" ADD CONSTRAINT "FK_08cbb179f4f37f4e990fd5b97ae" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "offers" ADD CONSTRAINT "FK_601d740f26c247aabcc531ac566" FOREIGN KEY ("framework_id") REFERENCES "frameworks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}
