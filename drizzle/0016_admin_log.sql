CREATE TABLE "admin_log" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"admin_id" uuid,
	"action" text NOT NULL,
	"target" text,
	"request_id" text,
	"ip" text,
	"details" jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "admin_log_admin_idx" ON "admin_log" USING btree ("admin_id","seq");--> statement-breakpoint
CREATE INDEX "admin_log_action_idx" ON "admin_log" USING btree ("action","seq");