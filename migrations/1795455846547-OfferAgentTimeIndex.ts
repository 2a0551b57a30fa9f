import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OfferAgentTimeIndex1795455846547 implements MigrationInterface {
  name = 'OfferAgentTimeIndex1795455846547';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_08cbb179f4f37f4e990fd5b97a"`);
    await queryRunner.query(`CREATE INDEX "IDX_10e1f7023ad43b423ccf4e3fe3" ON "offers"  ("agent_id", "created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_10e1f7023ad43b423ccf4e3fe3"`);
    await queryRunner.query(`CREATE INDEX "IDX_08cbb179f4f37f4e990fd5b97a" ON "offers" USING btree ("agent_id") `);
  }
}
