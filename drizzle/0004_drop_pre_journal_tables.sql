ALTER TABLE "payments" DROP CONSTRAINT "payments_mint_batch_id_mint_batches_id_fk";--> statement-breakpoint
ALTER TABLE "payments" DROP COLUMN "mint_batch_id";--> statement-breakpoint
DROP TABLE "mint_batches";--> statement-breakpoint
DROP TABLE "transactions";
