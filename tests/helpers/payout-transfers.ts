import type { RunningProvider } from './sandboxes';

/** A fresh 10-digit account number: the provider's transfers to it are one test's alone. */
export const randomAccountNumber = () => String(Math.floor(Math.random() * 9_000_000_000) + 1_000_000_000);

/** A transfer as the provider's list shows it (the fields a test reads). */
export interface ListedTransfer {
  reference: string;
  status: string;
  amount: number;
  recipient: { details: { account_number: string } };
}

/**
 * Every transfer the provider holds to `accountNumber`, under any reference, as an auditor reads
 * its `GET /transfer` list: a second reference to the same account would be a second payout.
 */
export async function transfersToAccount(provider: Pick<RunningProvider, 'url' | 'secretKey'>, accountNumber: string): Promise<ListedTransfer[]> {
  const res = await fetch(`${provider.url}/transfer?perPage=1000`, { headers: { Authorization: `Bearer ${provider.secretKey}` } });
  if (!res.ok) throw new Error(`GET /transfer answered ${res.status}`);
  const all = ((await res.json()) as { data: ListedTransfer[] }).data;
  return all.filter((t) => t.recipient.details.account_number === accountNumber);
}
