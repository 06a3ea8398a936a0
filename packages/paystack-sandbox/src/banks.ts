import { createHash } from 'node:crypto';

/**
 * A few real Nigerian banks with their NIP codes, as Paystack's `GET /bank?currency=NGN` lists
 * them. Enough to pick one in a form and to resolve an account; not Paystack's full list.
 */
export interface SandboxBank {
  id: number;
  name: string;
  slug: string;
  code: string;
}

export const SANDBOX_BANKS: readonly SandboxBank[] = [
  { id: 1, name: 'Access Bank', slug: 'access-bank', code: '044' },
  { id: 3, name: 'Ecobank Nigeria', slug: 'ecobank-nigeria', code: '050' },
  { id: 5, name: 'Fidelity Bank', slug: 'fidelity-bank', code: '070' },
  { id: 6, name: 'First Bank of Nigeria', slug: 'first-bank-of-nigeria', code: '011' },
  { id: 7, name: 'First City Monument Bank', slug: 'first-city-monument-bank', code: '214' },
  { id: 9, name: 'Guaranty Trust Bank', slug: 'guaranty-trust-bank', code: '058' },
  { id: 14, name: 'Stanbic IBTC Bank', slug: 'stanbic-ibtc-bank', code: '221' },
  { id: 16, name: 'Union Bank of Nigeria', slug: 'union-bank-of-nigeria', code: '032' },
  { id: 17, name: 'United Bank For Africa', slug: 'united-bank-for-africa', code: '033' },
  { id: 21, name: 'Zenith Bank', slug: 'zenith-bank', code: '057' },
  { id: 171, name: 'Kuda Bank', slug: 'kuda-bank', code: '50211' },
  { id: 168, name: 'OPay Digital Services Limited (OPay)', slug: 'paycom', code: '999992' },
];

export function findBank(code: string): SandboxBank | undefined {
  return SANDBOX_BANKS.find((bank) => bank.code === code);
}

/** Paystack's bank object of the list. */
export function toPaystackBank(bank: SandboxBank) {
  return {
    id: bank.id,
    name: bank.name,
    slug: bank.slug,
    code: bank.code,
    longcode: '',
    gateway: null,
    pay_with_bank: false,
    active: true,
    is_deleted: false,
    country: 'Nigeria',
    currency: 'NGN',
    type: 'nuban',
  };
}

const FIRST_NAMES = ['ADAEZE', 'CHINEDU', 'FUNMILAYO', 'IBRAHIM', 'KEHINDE', 'NGOZI', 'OLUWASEUN', 'TUNDE', 'YETUNDE', 'EMEKA'];
const LAST_NAMES = ['OKAFOR', 'ADEYEMI', 'BELLO', 'EZE', 'OGUNLEYE', 'MUSA', 'NWOSU', 'ABUBAKAR', 'ADEBAYO', 'OKONKWO'];

/** A NUBAN account number is ten digits; anything else never resolves. */
export function isNuban(accountNumber: string): boolean {
  return /^\d{10}$/.test(accountNumber);
}

/**
 * The name a bank would give for the account: the same for the same account at the same bank,
 * every run, so tests can assert it.
 */
export function accountNameFor(accountNumber: string, bankCode: string): string {
  const digest = createHash('sha256').update(`${bankCode}:${accountNumber}`).digest();
  return `${FIRST_NAMES[digest[0]! % FIRST_NAMES.length]} ${LAST_NAMES[digest[1]! % LAST_NAMES.length]}`;
}
