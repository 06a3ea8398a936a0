import type { Database, Executor } from '../db/client';
import { isUniqueViolation } from '../db/client';
import type { RateLimitRepository } from '../db/repositories/rate-limit.repository';
import type { UserRepository } from '../db/repositories/user.repository';
import { AppError } from '../errors/app-error';
import type { PasswordHasher } from '../security/password-hasher';
import { firstAcceptedIat, waitUntilAccepted } from '../security/sessions';
import type { TokenService } from '../security/tokens';
import type { WalletActivator, WalletService } from './wallet.service';

export interface SignupInput {
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

export interface Profile {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  ledgerPublicKey: string;
}

/**
 * The signup budget: every new wallet is a ledger account whose reserves (1.5 XLM, plus any
 * WALLET_STARTING_XLM) the distribution account sponsors, so signups are capped per clock hour
 * across every process.
 */
export interface SignupBudget {
  counters: RateLimitRepository;
  /** 0 = no cap. */
  walletsPerHour: number;
  onOutcome(outcome: 'created' | 'refused_budget'): void;
}

const HOUR_MS = 60 * 60 * 1000;

export interface UserServiceDeps {
  db: Database;
  users: UserRepository;
  wallets: WalletService;
  activator: WalletActivator;
  hasher: PasswordHasher;
  tokens: TokenService;
  budget?: SignupBudget;
}

export class UserService {
  /** Compared against when the identifier is unknown, so both failures cost one bcrypt compare. */
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly deps: UserServiceDeps) {}

  /**
   * Creates the account and its wallet in one database transaction: a user never exists without
   * a wallet. Uniqueness is left to the database's unique indexes, so two racing signups with one
   * e-mail get exactly one success. The wallet is then handed to the ledger for activation.
   * Past the hourly budget of new wallets: CAPACITY_EXHAUSTED, and nothing is kept (the budget's
   * count is taken in the same transaction, so a refused or duplicate signup spends none of it).
   */
  async signup(input: SignupInput): Promise<{ userId: string }> {
    const passwordHash = await this.deps.hasher.hash(input.password);
    let created: { userId: string; publicKey: string };
    try {
      created = await this.deps.db.transaction(async (tx) => {
        const user = await this.deps.users.insert(tx, { ...input, passwordHash });
        const wallet = await this.deps.wallets.createFor(tx, user.id);
        await this.spendWalletBudget(tx);
        return { userId: user.id, publicKey: wallet.publicKey };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'Email or username already exists');
      if (err instanceof AppError && err.code === 'CAPACITY_EXHAUSTED') this.deps.budget?.onOutcome('refused_budget');
      throw err;
    }
    this.deps.budget?.onOutcome('created');
    await this.deps.activator.activate(created);
    return { userId: created.userId };
  }

  /** Unknown identifier and wrong password fail alike, in body and in timing. */
  async login(identifier: string, password: string): Promise<{ token: string; profile: Profile }> {
    const user = await this.deps.users.findByIdentifier(identifier.trim());
    const hash = user?.passwordHash ?? (await this.getDummyHash());
    const matches = await this.deps.hasher.compare(password, hash);
    if (!user || !matches) throw new AppError('UNAUTHENTICATED', 'Invalid credentials');
    // Right after a password reset, a token of this very second would be refused: wait for the next.
    await waitUntilAccepted(user);
    const profile = await this.profile(user.id);
    return { token: this.deps.tokens.issueAccess(user.id, 'user'), profile };
  }

  async profile(userId: string): Promise<Profile> {
    const row = await this.deps.users.findWithWallet(userId);
    if (!row) throw new AppError('NOT_FOUND', 'User not found');
    return profileOf({ ...row, ledgerPublicKey: row.ledgerPublicKey ?? '' });
  }

  /** The profile with the wallet's secret key: only `GET /api/users/profile` shows this. */
  async profileWithSecret(userId: string): Promise<Profile & { ledgerSecretKey: string }> {
    const row = await this.deps.users.findWithSealedWallet(userId);
    if (!row) throw new AppError('NOT_FOUND', 'User not found');
    return {
      ...profileOf(row),
      ledgerSecretKey: this.deps.wallets.revealSecret({ publicKey: row.ledgerPublicKey, secretCiphertext: row.secretCiphertext, keyId: row.keyId }),
    };
  }

  async exists(userId: string): Promise<boolean> {
    return this.deps.users.exists(userId);
  }

  /** The first access-token `iat` the user accepts; undefined when the user no longer exists. */
  async firstAcceptedIat(userId: string): Promise<number | undefined> {
    const times = await this.deps.users.credentialTimes(userId);
    return times && firstAcceptedIat(times);
  }

  private async spendWalletBudget(tx: Executor): Promise<void> {
    if (!this.deps.budget || this.deps.budget.walletsPerHour === 0) return;
    const { hits } = await this.deps.budget.counters.hit('faucet:signup-wallets', HOUR_MS, tx);
    if (hits > this.deps.budget.walletsPerHour) {
      throw new AppError('CAPACITY_EXHAUSTED', 'Sign-ups are paused: the hourly budget of new wallets is spent, try again later');
    }
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= this.deps.hasher.hash('not-a-real-password-for-timing');
    return this.dummyHash;
  }
}

/** The profile fields the spec names, in its order, and nothing else of the row. */
function profileOf(row: Profile): Profile {
  return { username: row.username, email: row.email, firstName: row.firstName, lastName: row.lastName, ledgerPublicKey: row.ledgerPublicKey };
}
