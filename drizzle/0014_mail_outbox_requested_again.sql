-- A reset request that finds its e-mail pending folds into it. Once a worker has claimed that e-mail
-- its link is written, so a request folded in after the claim is marked here and gets an e-mail of its
-- own when this one is done (src/db/repositories/mail-outbox.repository.ts).
ALTER TABLE "mail_outbox" ADD COLUMN "requested_again" boolean DEFAULT false NOT NULL;