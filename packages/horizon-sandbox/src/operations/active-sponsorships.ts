/**
 * The begin/end sponsoring-future-reserves pairs open in one transaction: stellar-core's
 * SponsorshipEntry (sponsored -> sponsor) and SponsorshipCounterEntry (how many accounts a sponsor
 * is sponsoring right now). They live only for the transaction: none may be left open at its end.
 */
export class ActiveSponsorships {
  private readonly sponsorOf = new Map<string, string>();
  private readonly openBySponsor = new Map<string, number>();

  /** Who pays the reserves of entries `sponsored` creates from now on, if anyone. */
  sponsorFor(sponsored: string): string | undefined {
    return this.sponsorOf.get(sponsored);
  }

  isSponsoring(account: string): boolean {
    return this.openBySponsor.has(account);
  }

  isSponsored(account: string): boolean {
    return this.sponsorOf.has(account);
  }

  get anyOpen(): boolean {
    return this.sponsorOf.size > 0;
  }

  begin(sponsor: string, sponsored: string): void {
    this.sponsorOf.set(sponsored, sponsor);
    this.openBySponsor.set(sponsor, (this.openBySponsor.get(sponsor) ?? 0) + 1);
  }

  /** False if nobody was sponsoring `sponsored`. */
  end(sponsored: string): boolean {
    const sponsor = this.sponsorOf.get(sponsored);
    if (sponsor === undefined) return false;
    this.sponsorOf.delete(sponsored);
    const open = (this.openBySponsor.get(sponsor) ?? 1) - 1;
    if (open === 0) this.openBySponsor.delete(sponsor);
    else this.openBySponsor.set(sponsor, open);
    return true;
  }
}
