ALTER TABLE "ledger_envelopes" ADD COLUMN "outer_hash" text;--> statement-breakpoint
ALTER TABLE "ledger_envelopes" ADD COLUMN "bid_stroops" bigint;--> statement-breakpoint
ALTER TABLE "ledger_envelopes" ADD COLUMN "bid_ledger" integer;--> statement-breakpoint
ALTER TABLE "ledger_envelopes" ADD COLUMN "bumps" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_envelopes" ADD COLUMN "fee_charged" bigint;