import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fence: a statement run on a connection that carries a leadership term
 * (`arbiter.epoch`, set by the master's connections) is refused unless that term is still the
 * current one. It takes a shared advisory lock that a new term's start takes exclusively, so a
 * deposed leader's write either commits before the new term begins or is refused. Connections
 * without a term (the REST API's, on every replica) are not checked. Every table but the
 * migrations and the terms themselves has the trigger (a test checks new tables get it).
 * 7340001 is FENCE_LOCK in apps/control-plane/src/leadership/leadership.repository.ts.
 */
const FENCE_FUNCTION = `CREATE FUNCTION arbiter_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  term text := current_setting('arbiter.epoch', true);
  current_epoch bigint;
BEGIN
  IF term IS NULL OR term = '' THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(7340001);
  SELECT max(epoch) INTO current_epoch FROM leader_terms;
  IF current_epoch IS DISTINCT FROM term::bigint THEN
    RAISE EXCEPTION 'leadership term % has ended (the current term is %): this replica is no longer the leader', term, current_epoch
      USING ERRCODE = 'AR001';
  END IF;
  RETURN NULL;
END $$`;

const UNFENCED = ['migrations', 'leader_terms'];

async function fencedTables(queryRunner: QueryRunner): Promise<string[]> {
  const rows = (await queryRunner.query(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND NOT (tablename = ANY($1)) ORDER BY tablename`,
    [UNFENCED],
  )) as Array<{ tablename: string }>;
  return rows.map((r) => r.tablename);
}

export class LeadershipTerms1795530680629 implements MigrationInterface {
  name = 'LeadershipTerms1795530680629';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "leader_terms" ("epoch" BIGSERIAL NOT NULL, "replica" text NOT NULL, "url" text NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6a91cacc4f6ae6b1313dd93d2e3" PRIMARY KEY ("epoch"))`,
    );
    await queryRunner.query(FENCE_FUNCTION);
    for (const table of await fencedTables(queryRunner))
      await queryRunner.query(
        `CREATE TRIGGER "fence_${table}" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION arbiter_fence()`,
      );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of await fencedTables(queryRunner)) await queryRunner.query(`DROP TRIGGER IF EXISTS "fence_${table}" ON "${table}"`);
    await queryRunner.query(`DROP FUNCTION arbiter_fence()`);
    await queryRunner.query(`DROP TABLE "leader_terms"`);
  }
}
