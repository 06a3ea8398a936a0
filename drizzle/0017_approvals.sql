CREATE TABLE "approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"action" text NOT NULL,
	"user_id" uuid,
	"amount_stroops" bigint NOT NULL,
	"asset_code" text NOT NULL,
	"requested_by" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"expires_at" timestamp with time zone DEFAULT now() + interval '24 hours' NOT NULL,
	"entry_id" uuid,
	"idempotency_route" text,
	"idempotency_key" text,
	"request_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "approval_id" uuid;--> statement-breakpoint
CREATE INDEX "approvals_status_idx" ON "approvals" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_entry_key" ON "approvals" USING btree ("entry_id");--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_idempotency_key" ON "approvals" USING btree ("requested_by","idempotency_route","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_approval_key" ON "ledger_entries" USING btree ("approval_id") WHERE approval_id is not null and status <> 'failed';