import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795414029889 implements MigrationInterface {
  name = 'Initial1795414029889';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TYPE "public"."agent_status" AS ENUM('REACHABLE', 'UNREACHABLE', 'GONE')`);
    await queryRunner.query(`CREATE TYPE "public"."agent_drain_state" AS ENUM('DRAINING', 'DRAINED')`);
    await queryRunner.query(
      `CREATE TABLE "agents" ("id" text NOT NULL, "hostname" text NOT NULL, "address" text, "attributes" jsonb NOT NULL, "resources" jsonb NOT NULL, "status" "public"."agent_status" NOT NULL, "activated" boolean NOT NULL, "drain_state" "public"."agent_drain_state", "drain_config" jsonb, "drain_started_at" TIMESTAMP WITH TIME ZONE, "version" text, "first_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_9c653f28ae19c5884d5baf6a1d9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_ac00d0040d177f68fd279a163b" ON "agents"  ("status") `);
    await queryRunner.query(`CREATE INDEX "IDX_60f511dbb71921e1c451ba2a8c" ON "agents"  ("hostname") `);
    await queryRunner.query(
      `CREATE TABLE "allocation_cycles" ("id" BIGSERIAL NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "duration_ms" double precision NOT NULL, "offer_count" integer NOT NULL, "trace" jsonb NOT NULL, "leader" text, CONSTRAINT "PK_9ef08f21137ad587f24610a6d93" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_2492c2c8cf6aadf5394124aa3e" ON "allocation_cycles"  ("started_at") `);
    await queryRunner.query(`CREATE TYPE "public"."share_client_kind" AS ENUM('ROLE', 'FRAMEWORK')`);
    await queryRunner.query(
      `CREATE TABLE "allocation_shares" ("cycle_id" bigint NOT NULL, "client_kind" "public"."share_client_kind" NOT NULL, "client" text NOT NULL, "role" text, "dominant_share" double precision NOT NULL, "shares" jsonb NOT NULL, CONSTRAINT "PK_4cb5106d58c3f6cf461d1897a41" PRIMARY KEY ("cycle_id", "client_kind", "client"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "audit_log" ("id" BIGSERIAL NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "actor" text NOT NULL, "principal_id" uuid, "token_id" uuid, "action" text NOT NULL, "target_type" text NOT NULL, "target_id" text, "before" jsonb, "after" jsonb, "request_id" text, CONSTRAINT "PK_07fefa57f7f5ab8fc3f52b3ed0b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_b24e98ef90e2b356263d4487e4" ON "audit_log"  ("actor") `);
    await queryRunner.query(`CREATE INDEX "IDX_f0e9a94f10a209afbf22d4e77a" ON "audit_log"  ("target_type", "target_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_951e6339a77994dfbad976b35c" ON "audit_log"  ("action") `);
    await queryRunner.query(`CREATE INDEX "IDX_ba27cef5b8b2b1a756e06ebcc5" ON "audit_log"  ("at") `);
    await queryRunner.query(`CREATE TYPE "public"."principal_kind" AS ENUM('USER', 'SERVICE')`);
    await queryRunner.query(
      `CREATE TABLE "principals" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" text NOT NULL, "kind" "public"."principal_kind" NOT NULL, "is_admin" boolean NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "disabled_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "UQ_09fd1e2c58012e3457e93d9446d" UNIQUE ("name"), CONSTRAINT "PK_58c7b420eb803e39d754963719c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "api_tokens" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "principal_id" uuid NOT NULL, "name" text NOT NULL, "token_hash" character(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "UQ_bbd687a104e1921e6702c6e3aad" UNIQUE ("token_hash"), CONSTRAINT "PK_c587455266b5fa8dace7194caac" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_22bd785eb79017126832c27c79" ON "api_tokens"  ("principal_id") `);
    await queryRunner.query(`CREATE TYPE "public"."framework_state" AS ENUM('ACTIVE', 'DISCONNECTED', 'COMPLETED')`);
    await queryRunner.query(
      `CREATE TABLE "frameworks" ("id" text NOT NULL, "name" text NOT NULL, "principal" text, "user" text, "roles" text array NOT NULL, "capabilities" text array NOT NULL, "failover_timeout_seconds" double precision NOT NULL, "hostname" text, "webui_url" text, "state" "public"."framework_state" NOT NULL, "suppressed_roles" text array NOT NULL, "registered_at" TIMESTAMP WITH TIME ZONE NOT NULL, "disconnected_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_23e178ce62668c9ce2036b7a3c2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_b74ea9f88169cd9dd3ce68ddea" ON "frameworks"  ("state") `);
    await queryRunner.query(`CREATE TYPE "public"."inverse_offer_status" AS ENUM('UNKNOWN', 'ACCEPT', 'DECLINE')`);
    await queryRunner.query(
      `CREATE TABLE "inverse_offer_responses" ("hostname" text NOT NULL, "ip" text NOT NULL, "framework_id" text NOT NULL, "status" "public"."inverse_offer_status" NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a3c8ae6514fbb8a26285af5d728" PRIMARY KEY ("hostname", "ip", "framework_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "maintenance_windows" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "position" integer NOT NULL, "start_at" TIMESTAMP WITH TIME ZONE NOT NULL, "duration_seconds" integer, CONSTRAINT "PK_c939ec0e19687a7d64b5e357d28" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_b198a66cecfcb3686314dffd54" ON "maintenance_windows"  ("position") `);
    await queryRunner.query(`CREATE TYPE "public"."machine_mode" AS ENUM('UP', 'DRAINING', 'DOWN')`);
    await queryRunner.query(
      `CREATE TABLE "maintenance_machines" ("hostname" text NOT NULL, "ip" text NOT NULL, "window_id" uuid NOT NULL, "mode" "public"."machine_mode" NOT NULL, "down_since" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_414b83ddd3569282a9e89113b39" PRIMARY KEY ("hostname", "ip"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_fd15a9759090b5804f7974715e" ON "maintenance_machines"  ("window_id") `);
    await queryRunner.query(`CREATE TYPE "public"."offer_state" AS ENUM('OUTSTANDING', 'ACCEPTED', 'DECLINED', 'RESCINDED', 'EXPIRED')`);
    await queryRunner.query(
      `CREATE TABLE "offers" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "framework_id" text NOT NULL, "agent_id" text NOT NULL, "role" text NOT NULL, "resources" jsonb NOT NULL, "state" "public"."offer_state" NOT NULL, "cycle_id" bigint, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE, "closed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_4c88e956195bba85977da21b8f4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_601d740f26c247aabcc531ac56" ON "offers"  ("framework_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_08cbb179f4f37f4e990fd5b97a" ON "offers"  ("agent_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_b6deb3407db7421562841c6e4e" ON "offers"  ("state") `);
    await queryRunner.query(
      `CREATE TABLE "reservations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "agent_id" text NOT NULL, "role" text NOT NULL, "resources" jsonb NOT NULL, "labels" jsonb NOT NULL, "principal" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_da95cef71b617ac35dc5bcda243" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_0eae0163315a023c4d4db1531f" ON "reservations"  ("role") `);
    await queryRunner.query(`CREATE INDEX "IDX_24fc73d80793d2d87b312d62b6" ON "reservations"  ("agent_id") `);
    await queryRunner.query(
      `CREATE TABLE "roles" ("path" text NOT NULL, "weight" double precision NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_c1188cd304864d1d4c19c277a14" PRIMARY KEY ("path"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "quotas" ("role" text NOT NULL, "guarantees" jsonb NOT NULL, "limits" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_553a54558f513d1ee9016ffa062" PRIMARY KEY ("role"))`,
    );
    await queryRunner.query(
      `CREATE TYPE "public"."task_state" AS ENUM('STAGING', 'STARTING', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR')`,
    );
    await queryRunner.query(
      `CREATE TABLE "tasks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "task_id" text NOT NULL, "framework_id" text NOT NULL, "agent_id" text NOT NULL, "name" text NOT NULL, "role" text NOT NULL, "resources" jsonb NOT NULL, "command" jsonb, "state" "public"."task_state" NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "UQ_f7ca9982c18581d975b3fec4048" UNIQUE ("framework_id", "task_id"), CONSTRAINT "PK_8d12ff38fcc62aaba2cab748772" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_5c1e55378c730af09601496928" ON "tasks"  ("state") `);
    await queryRunner.query(`CREATE INDEX "IDX_bcb2622b3a762eb82f65b76d37" ON "tasks"  ("agent_id") `);
    await queryRunner.query(
      `CREATE TYPE "public"."task_status_update_state" AS ENUM('STAGING', 'STARTING', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED', 'LOST', 'ERROR')`,
    );
    await queryRunner.query(
      `CREATE TABLE "task_status_updates" ("id" BIGSERIAL NOT NULL, "task_ref" uuid NOT NULL, "state" "public"."task_status_update_state" NOT NULL, "reason" text, "message" text, "source" text NOT NULL, "update_uuid" uuid NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "acknowledged_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_28c239917ef5d9a6d349071c10b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_df2878323a7a4a4d222f3343a0" ON "task_status_updates"  ("task_ref", "at") `);
    await queryRunner.query(
      `CREATE TABLE "whitelist" ("id" smallint NOT NULL, "hostnames" text array, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "whitelist_single_row" CHECK ("id" = 1), CONSTRAINT "PK_0169bfbd49b0511243f7a068cec" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "allocation_shares" ADD CONSTRAINT "FK_b2b42e97d03c2d08f78413771d8" FOREIGN KEY ("cycle_id") REFERENCES "allocation_cycles"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_tokens" ADD CONSTRAINT "FK_22bd785eb79017126832c27c79e" FOREIGN KEY ("principal_id") REFERENCES "principals"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "inverse_offer_responses" ADD CONSTRAINT "FK_a371f0c9229e7105cdb745056d6" FOREIGN KEY ("framework_id") REFERENCES "frameworks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "maintenance_machines" ADD CONSTRAINT "FK_fd15a9759090b5804f7974715e6" FOREIGN KEY ("window_id") REFERENCES "maintenance_windows"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "offers" ADD CONSTRAINT "FK_601d740f26c247aabcc531ac566" FOREIGN KEY ("framework_id") REFERENCES "frameworks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "offers" ADD CONSTRAINT "FK_08cbb179f4f37f4e990fd5b97ae" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "offers" ADD CONSTRAINT "FK_4a6912e0023e8c8b084f0be54e9" FOREIGN KEY ("cycle_id") REFERENCES "allocation_cycles"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "reservations" ADD CONSTRAINT "FK_24fc73d80793d2d87b312d62b63" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quotas" ADD CONSTRAINT "FK_553a54558f513d1ee9016ffa062" FOREIGN KEY ("role") REFERENCES "roles"("path") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tasks" ADD CONSTRAINT "FK_d335a55c24c2a175947fae2c070" FOREIGN KEY ("framework_id") REFERENCES "frameworks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tasks" ADD CONSTRAINT "FK_bcb2622b3a762eb82f65b76d371" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "task_status_updates" ADD CONSTRAINT "FK_a472b499582b6aef88932b3edd4" FOREIGN KEY ("task_ref") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "task_status_updates" DROP CONSTRAINT "FK_a472b499582b6aef88932b3edd4"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP CONSTRAINT "FK_bcb2622b3a762eb82f65b76d371"`);
    await queryRunner.query(`ALTER TABLE "tasks" DROP CONSTRAINT "FK_d335a55c24c2a175947fae2c070"`);
    await queryRunner.query(`ALTER TABLE "quotas" DROP CONSTRAINT "FK_553a54558f513d1ee9016ffa062"`);
    await queryRunner.query(`ALTER TABLE "reservations" DROP CONSTRAINT "FK_24fc73d80793d2d87b312d62b63"`);
    await queryRunner.query(`ALTER TABLE "offers" DROP CONSTRAINT "FK_4a6912e0023e8c8b084f0be54e9"`);
    await queryRunner.query(`ALTER TABLE "offers" DROP CONSTRAINT "FK_08cbb179f4f37f4e990fd5b97ae"`);
    await queryRunner.query(`ALTER TABLE "offers" DROP CONSTRAINT "FK_601d740f26c247aabcc531ac566"`);
    await queryRunner.query(`ALTER TABLE "maintenance_machines" DROP CONSTRAINT "FK_fd15a9759090b5804f7974715e6"`);
    await queryRunner.query(`ALTER TABLE "inverse_offer_responses" DROP CONSTRAINT "FK_a371f0c9229e7105cdb745056d6"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "FK_22bd785eb79017126832c27c79e"`);
    await queryRunner.query(`ALTER TABLE "allocation_shares" DROP CONSTRAINT "FK_b2b42e97d03c2d08f78413771d8"`);
    await queryRunner.query(`DROP TABLE "whitelist"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_df2878323a7a4a4d222f3343a0"`);
    await queryRunner.query(`DROP TABLE "task_status_updates"`);
    await queryRunner.query(`DROP TYPE "public"."task_status_update_state"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_bcb2622b3a762eb82f65b76d37"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_5c1e55378c730af09601496928"`);
    await queryRunner.query(`DROP TABLE "tasks"`);
    await queryRunner.query(`DROP TYPE "public"."task_state"`);
    await queryRunner.query(`DROP TABLE "quotas"`);
    await queryRunner.query(`DROP TABLE "roles"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_24fc73d80793d2d87b312d62b6"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_0eae0163315a023c4d4db1531f"`);
    await queryRunner.query(`DROP TABLE "reservations"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b6deb3407db7421562841c6e4e"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_08cbb179f4f37f4e990fd5b97a"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_601d740f26c247aabcc531ac56"`);
    await queryRunner.query(`DROP TABLE "offers"`);
    await queryRunner.query(`DROP TYPE "public"."offer_state"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_fd15a9759090b5804f7974715e"`);
    await queryRunner.query(`DROP TABLE "maintenance_machines"`);
    await queryRunner.query(`DROP TYPE "public"."machine_mode"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b198a66cecfcb3686314dffd54"`);
    await queryRunner.query(`DROP TABLE "maintenance_windows"`);
    await queryRunner.query(`DROP TABLE "inverse_offer_responses"`);
    await queryRunner.query(`DROP TYPE "public"."inverse_offer_status"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b74ea9f88169cd9dd3ce68ddea"`);
    await queryRunner.query(`DROP TABLE "frameworks"`);
    await queryRunner.query(`DROP TYPE "public"."framework_state"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_22bd785eb79017126832c27c79"`);
    await queryRunner.query(`DROP TABLE "api_tokens"`);
    await queryRunner.query(`DROP TABLE "principals"`);
    await queryRunner.query(`DROP TYPE "public"."principal_kind"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_ba27cef5b8b2b1a756e06ebcc5"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_951e6339a77994dfbad976b35c"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_f0e9a94f10a209afbf22d4e77a"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b24e98ef90e2b356263d4487e4"`);
    await queryRunner.query(`DROP TABLE "audit_log"`);
    await queryRunner.query(`DROP TABLE "allocation_shares"`);
    await queryRunner.query(`DROP TYPE "public"."share_client_kind"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_2492c2c8cf6aadf5394124aa3e"`);
    await queryRunner.query(`DROP TABLE "allocation_cycles"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_60f511dbb71921e1c451ba2a8c"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_ac00d0040d177f68fd279a163b"`);
    await queryRunner.query(`DROP TABLE "agents"`);
    await queryRunner.query(`DROP TYPE "public"."agent_drain_state"`);
    await queryRunner.query(`DROP TYPE "public"."agent_status"`);
  }
}
