-- Reversals (src/domain/payment-lifecycle.ts): money that went back to a buyer after the mint, each
-- taken back by a clawback (a journal entry) or owed as debt, settled by the next purchase.
CREATE TABLE "payment_reversals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key" text NOT NULL,
	"payment_reference" text NOT NULL,
	"user_id" uuid NOT NULL,
	"cause" text NOT NULL,
	"amount_kobo" bigint NOT NULL,
	"tokens_stroops" bigint NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"entry_id" uuid,
	"clawed_stroops" bigint,
	"debt_stroops" bigint,
	"note" text,
	"next_check_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "debt_settled_stroops" bigint;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "reversal_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_reversals_key" ON "payment_reversals" USING btree ("key");--> statement-breakpoint
CREATE INDEX "payment_reversals_reference_idx" ON "payment_reversals" USING btree ("payment_reference");--> statement-breakpoint
CREATE INDEX "payment_reversals_user_idx" ON "payment_reversals" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "payment_reversals_due_idx" ON "payment_reversals" USING btree ("next_check_at") WHERE status = 'waiting';--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_reversal_key" ON "ledger_entries" USING btree ("reversal_id") WHERE kind = 'clawback' and status <> 'failed';--> statement-breakpoint
-- Payments past `paid` were minted in full before debts existed.
UPDATE "payments" SET "debt_settled_stroops" = 0 WHERE "status" IN ('minting', 'minted');
