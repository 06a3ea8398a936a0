-- The payment lifecycle (src/domain/payment-lifecycle.ts). `verified` (reference consumed, its mint
-- in the journal) is now `minting`; `paid` is new (consumed, mint not in the journal yet).
UPDATE "payments" SET "status" = 'minting' WHERE "status" = 'verified';--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "next_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "check_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "mint_not_yet_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "paid_at" timestamp with time zone;--> statement-breakpoint
-- Payments recorded before the sweep existed are asked about once it starts.
UPDATE "payments" SET "next_check_at" = now() WHERE "status" = 'initialized';--> statement-breakpoint
UPDATE "payments" SET "paid_at" = "updated_at" WHERE "status" IN ('minting', 'minted');--> statement-breakpoint
CREATE INDEX "payments_due_check_idx" ON "payments" USING btree ("next_check_at") WHERE status in ('initialized', 'paid');--> statement-breakpoint
-- Webhook events are one row per provider event (its name and object id), no longer per reference.
ALTER TABLE "webhook_events" ADD COLUMN "event_key" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "payload" jsonb;--> statement-breakpoint
UPDATE "webhook_events" SET "event_key" = "event" || ':reference:' || "reference";--> statement-breakpoint
ALTER TABLE "webhook_events" ALTER COLUMN "event_key" SET NOT NULL;--> statement-breakpoint
DROP INDEX "webhook_events_event_reference_key";--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_event_key" ON "webhook_events" USING btree ("event_key");--> statement-breakpoint
CREATE INDEX "webhook_events_reference_idx" ON "webhook_events" USING btree ("reference");--> statement-breakpoint
-- One live mint per payment: a mint refused as "not yet" (failed) lets the next one in.
DROP INDEX "ledger_entries_payment_key";--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_payment_key" ON "ledger_entries" USING btree ("payment_reference") WHERE kind = 'payment_mint' and status <> 'failed';
