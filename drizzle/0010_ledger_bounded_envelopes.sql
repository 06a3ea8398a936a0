ALTER TABLE "ledger_envelopes" ADD COLUMN "first_ledger" integer;--> statement-breakpoint
ALTER TABLE "ledger_envelopes" ADD COLUMN "last_ledger" integer;--> statement-breakpoint
ALTER TABLE "ledger_envelopes" ADD COLUMN "prior_outer_hashes" text[] DEFAULT '{}'::text[] NOT NULL;