CREATE TABLE "ledger_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"envelope_id" uuid,
	"ledger_transaction_id" text DEFAULT '' NOT NULL,
	"ledger" integer,
	"from_public_key" text NOT NULL,
	"to_public_key" text NOT NULL,
	"amount_stroops" bigint NOT NULL,
	"asset_code" text NOT NULL,
	"user_id" uuid,
	"payment_reference" text,
	"failure_code" text,
	"lease_until" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_envelopes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"hash" text NOT NULL,
	"source_account" text NOT NULL,
	"sequence" bigint NOT NULL,
	"max_time" bigint NOT NULL,
	"envelope_xdr" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"submit_count" integer DEFAULT 0 NOT NULL,
	"ledger" integer,
	"failure" text,
	"next_check_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_envelopes_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"event" text NOT NULL,
	"reference" text NOT NULL,
	"status" text DEFAULT 'received' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"outcome" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "entry_id" uuid;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "failure_reason" text;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_envelope_id_ledger_envelopes_id_fk" FOREIGN KEY ("envelope_id") REFERENCES "public"."ledger_envelopes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_entries_user_records_idx" ON "ledger_entries" USING btree ("user_id","created_at","id") WHERE kind in ('transfer', 'payment_mint', 'admin_mint');--> statement-breakpoint
CREATE INDEX "ledger_entries_records_idx" ON "ledger_entries" USING btree ("created_at","id") WHERE kind in ('transfer', 'payment_mint', 'admin_mint');--> statement-breakpoint
CREATE INDEX "ledger_entries_envelope_idx" ON "ledger_entries" USING btree ("envelope_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_open_idx" ON "ledger_entries" USING btree ("lease_until") WHERE status in ('pending', 'submitted');--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_payment_key" ON "ledger_entries" USING btree ("payment_reference") WHERE kind = 'payment_mint';--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_activation_key" ON "ledger_entries" USING btree ("user_id") WHERE kind = 'activation' and status <> 'failed';--> statement-breakpoint
CREATE INDEX "ledger_envelopes_open_idx" ON "ledger_envelopes" USING btree ("next_check_at") WHERE status in ('pending', 'submitted');--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_event_reference_key" ON "webhook_events" USING btree ("event","reference");--> statement-breakpoint
CREATE INDEX "webhook_events_due_idx" ON "webhook_events" USING btree ("next_attempt_at") WHERE status = 'received';--> statement-breakpoint
-- Carry the earlier version's data into the journal. Records it wrote were all applied on the
-- ledger; a mint record is a payment's when a payment names its hash and wallet.
INSERT INTO "ledger_entries" ("id", "kind", "status", "ledger_transaction_id", "from_public_key", "to_public_key", "amount_stroops", "asset_code", "user_id", "payment_reference", "created_at", "updated_at")
SELECT t."id",
       CASE WHEN t."kind" = 'transfer' THEN 'transfer' WHEN p."reference" IS NOT NULL THEN 'payment_mint' ELSE 'admin_mint' END,
       'confirmed', t."ledger_transaction_id", t."from_public_key", t."to_public_key", t."amount_stroops", t."asset_code", t."user_id", p."reference", t."created_at", t."created_at"
FROM "transactions" t
LEFT JOIN LATERAL (
  SELECT "reference" FROM "payments" p
  WHERE t."kind" = 'mint' AND p."mint_tx_hash" = t."ledger_transaction_id" AND p."destination_public_key" = t."to_public_key" AND p."user_id" = t."user_id"
  ORDER BY p."reference" LIMIT 1
) p ON true;
--> statement-breakpoint
-- A mint envelope still unsettled may yet apply: it becomes a submitted journal envelope (its
-- sequence and time bounds are read from its XDR by the code), and its payments ride in it.
INSERT INTO "ledger_envelopes" ("id", "hash", "source_account", "sequence", "max_time", "envelope_xdr", "status", "submit_count", "next_check_at", "created_at")
SELECT "id", "tx_hash", '', 0, 0, "envelope_xdr", 'submitted', 1, now(), "created_at" FROM "mint_batches" WHERE "status" = 'signed';
--> statement-breakpoint
INSERT INTO "ledger_entries" ("kind", "status", "envelope_id", "ledger_transaction_id", "from_public_key", "to_public_key", "amount_stroops", "asset_code", "user_id", "payment_reference")
SELECT 'payment_mint', CASE WHEN e."id" IS NULL THEN 'pending' ELSE 'submitted' END, e."id", COALESCE(e."hash", ''),
       '', p."destination_public_key", p."tokens_stroops", '', p."user_id", p."reference"
FROM "payments" p
LEFT JOIN "ledger_envelopes" e ON e."hash" = p."mint_tx_hash"
WHERE p."status" = 'verified' AND NOT EXISTS (SELECT 1 FROM "ledger_entries" x WHERE x."payment_reference" = p."reference");
