-- Keys of the earlier version replayed stored answers; keys are now bound to journal entries. Upgrade with no request in flight.
DELETE FROM "idempotency_keys" WHERE "entry_id" IS NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "entry_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "response_status";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "response_body";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "response_type";