import type { Bank, PaystackClient } from '../clients/paystack.client';
import type { PayoutAccountRepository, PayoutAccountRow } from '../db/repositories/payout-account.repository';
import { AppError } from '../errors/app-error';

/** How long the provider's bank list is reused: it changes a few times a year. */
const BANKS_CACHE_MS = 60 * 60 * 1000;

/**
 * Where a user's Naira go: the provider's banks, and the user's bank accounts, each resolved by the
 * provider (the name is the bank's, never the user's word) and registered as a transfer recipient
 * before it can be paid.
 */
export class PayoutAccountService {
  private banks: { at: number; list: Promise<Bank[]> } | undefined;

  constructor(
    private readonly provider: PaystackClient,
    private readonly accounts: PayoutAccountRepository,
  ) {}

  /** The provider's NGN banks, cached; a failed read is not kept, so the next caller asks again. */
  listBanks(): Promise<Bank[]> {
    if (!this.banks || Date.now() - this.banks.at >= BANKS_CACHE_MS) {
      const list = this.provider.listBanks();
      this.banks = { at: Date.now(), list };
      list.catch(() => {
        if (this.banks?.list === list) this.banks = undefined;
      });
    }
    return this.banks.list;
  }

  /**
   * Resolves the account at the provider and registers its recipient. An unknown bank code, or an
   * account the bank does not know, is a VALIDATION error; nothing is stored for it.
   */
  async add(userId: string, bankCode: string, accountNumber: string): Promise<PayoutAccountRow> {
    const bank = (await this.listBanks()).find((b) => b.code === bankCode);
    if (!bank) throw new AppError('VALIDATION', 'Unknown bankCode: GET /api/payments/banks lists the banks payouts go to');
    const resolved = await this.provider.resolveAccount(accountNumber, bankCode);
    if (!resolved) throw new AppError('VALIDATION', 'The bank could not resolve this account number');
    const recipient = await this.provider.createRecipient({ name: resolved.accountName, accountNumber, bankCode });
    return this.accounts.add({ userId, bankCode, bankName: bank.name, accountNumber, accountName: resolved.accountName, recipientCode: recipient.recipientCode });
  }

  list(userId: string): Promise<PayoutAccountRow[]> {
    return this.accounts.listOwn(userId);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!(await this.accounts.deleteOwn(userId, id))) throw new AppError('NOT_FOUND', 'Payout account not found');
  }
}
