CREATE TABLE "payout_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"bank_code" text NOT NULL,
	"bank_name" text NOT NULL,
	"account_number" text NOT NULL,
	"account_name" text NOT NULL,
	"recipient_code" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "withdrawals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"payout_account_id" uuid NOT NULL,
	"recipient_code" text NOT NULL,
	"bank_name" text NOT NULL,
	"account_number" text NOT NULL,
	"account_name" text NOT NULL,
	"wallet_public_key" text NOT NULL,
	"amount_stroops" bigint NOT NULL,
	"naira_kobo" bigint NOT NULL,
	"reference" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"transfer_code" text,
	"provider_status" text,
	"transfer_calls" integer DEFAULT 0 NOT NULL,
	"clean_refusals" integer DEFAULT 0 NOT NULL,
	"reason" text,
	"status_since" timestamp with time zone DEFAULT now() NOT NULL,
	"next_check_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"paid_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "ledger_entries_user_records_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_records_idx";--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "withdrawal_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "payout_accounts_live_key" ON "payout_accounts" USING btree ("user_id","bank_code","account_number") WHERE deleted_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "withdrawals_reference_key" ON "withdrawals" USING btree ("reference");--> statement-breakpoint
CREATE UNIQUE INDEX "withdrawals_idempotency_key" ON "withdrawals" USING btree ("user_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "withdrawals_user_idx" ON "withdrawals" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "withdrawals_status_idx" ON "withdrawals" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "withdrawals_due_idx" ON "withdrawals" USING btree ("next_check_at") WHERE status in ('requested', 'debited', 'sending', 'waiting_float', 'processing', 'awaiting_otp', 'refund_due');--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_withdrawal_key" ON "ledger_entries" USING btree ("withdrawal_id") WHERE kind = 'withdrawal' and status <> 'failed';--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_withdrawal_refund_key" ON "ledger_entries" USING btree ("withdrawal_id") WHERE kind = 'withdrawal_refund' and status <> 'failed';--> statement-breakpoint
CREATE INDEX "ledger_entries_user_records_idx" ON "ledger_entries" USING btree ("user_id","created_at","id") WHERE kind in ('transfer', 'payment_mint', 'admin_mint', 'withdrawal', 'withdrawal_refund');--> statement-breakpoint
CREATE INDEX "ledger_entries_records_idx" ON "ledger_entries" USING btree ("created_at","id") WHERE kind in ('transfer', 'payment_mint', 'admin_mint', 'withdrawal', 'withdrawal_refund');