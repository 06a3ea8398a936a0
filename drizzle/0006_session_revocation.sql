ALTER TABLE "admins" ADD COLUMN "password_changed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Existing admins have never changed their password: their tokens stay valid.
UPDATE "admins" SET "password_changed_at" = "created_at";
