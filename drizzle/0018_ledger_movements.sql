CREATE TABLE "ledger_follow_cursor" (
	"name" text PRIMARY KEY NOT NULL,
	"cursor" text,
	"ledger" integer NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_follow_gaps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"first_ledger" integer NOT NULL,
	"last_ledger" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolution" text
);
--> statement-breakpoint
CREATE TABLE "ledger_movements" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"ledger_transaction_id" text NOT NULL,
	"operation_index" integer NOT NULL,
	"operation_type" text NOT NULL,
	"ledger" integer NOT NULL,
	"from_public_key" text NOT NULL,
	"to_public_key" text NOT NULL,
	"amount_stroops" bigint NOT NULL,
	"asset_code" text NOT NULL,
	"sent_stroops" bigint,
	"sent_asset_code" text,
	"from_user_id" uuid,
	"to_user_id" uuid,
	"user_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_follow_gaps_first_key" ON "ledger_follow_gaps" USING btree ("first_ledger");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_movements_operation_key" ON "ledger_movements" USING btree ("ledger_transaction_id","operation_index");--> statement-breakpoint
CREATE INDEX "ledger_movements_from_user_idx" ON "ledger_movements" USING btree ("from_user_id","created_at","id") WHERE from_user_id is not null;--> statement-breakpoint
CREATE INDEX "ledger_movements_to_user_idx" ON "ledger_movements" USING btree ("to_user_id","created_at","id") WHERE to_user_id is not null;--> statement-breakpoint
CREATE INDEX "ledger_movements_created_idx" ON "ledger_movements" USING btree ("created_at","id");