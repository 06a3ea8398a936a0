/** Failures of the ledger, as the service reasons about them (the wallet SDK's typed-error habit). */

/** Horizon could not be reached or answered 5xx: nothing is known to have happened; retryable. */
export class LedgerUnavailableError extends Error {
  constructor(message = 'Ledger unavailable') {
    super(message);
    this.name = 'LedgerUnavailableError';
  }
}

/**
 * The ledger refused the transaction, with Stellar's result codes. Nothing was applied. For a fee
 * bump the codes are the inner transaction's, unless the fee bump itself was refused (`feeBump`:
 * its fee source, fee or signature): that is about who pays, never about what the transaction does.
 */
export class LedgerRejectedError extends Error {
  constructor(
    readonly transactionCode: string,
    readonly operationCodes: string[],
    readonly feeBump = false,
    /**
     * The fee the refusal names, in stroops (the TransactionResult's feeCharged): for
     * tx_insufficient_fee, the least fee the ledger would have taken. Undefined when not known.
     */
    readonly feeCharged?: bigint,
  ) {
    super(`Transaction rejected: ${feeBump ? 'fee bump ' : ''}${transactionCode}${operationCodes.length ? ` [${operationCodes.join(', ')}]` : ''}`);
    this.name = 'LedgerRejectedError';
  }

  /** The first failing operation's code, or the transaction code. */
  get code(): string {
    return this.operationCodes.find((c) => c !== 'op_success') ?? this.transactionCode;
  }
}
