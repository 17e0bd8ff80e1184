/**
 * Off-chain mirror of the launchpad curve (contracts/Launchpad.sol), for tests, simulators and
 * clients that want to predict a trade. All amounts are bigint base units (wei, token base units).
 */

/** Fixed supply of every launchpad token (10^9 whole tokens, 18 decimals). */
export const LAUNCHPAD_INITIAL_SUPPLY = 10n ** 27n;
/** Basis-point denominator. */
export const BPS = 10_000n;
/** Default protocol fee (bps) of the devnet deployment. */
export const DEFAULT_PROTOCOL_FEE_BPS = 100n;
/** Default creator fee (bps) of the devnet deployment. */
export const DEFAULT_CREATOR_FEE_BPS = 50n;
/** Default graduation threshold of the devnet deployment: 5 ETH of real reserve. */
export const DEFAULT_GRADUATION_THRESHOLD = 5n * 10n ** 18n;
/** Default initial virtual ETH reserve of every token: 1 ETH. */
export const DEFAULT_INITIAL_VIRTUAL_RESERVE = 10n ** 18n;

/** Deployment parameters of a launchpad. */
export interface CurveConfig {
  protocolFeeBps: bigint;
  creatorFeeBps: bigint;
  graduationThreshold: bigint;
  initialVirtualReserve: bigint;
}

/** Virtual reserves of one token's curve. */
export interface CurveState {
  reserveBalance: bigint;
  tokenBalance: bigint;
}

/** Amounts of one curve trade, as the `TokensBought` / `TokensSold` events report them. */
export interface CurveTrade {
  reserveAmount: bigint;
  tokenAmount: bigint;
  curveValue: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** Virtual reserves after the trade. */
  reserveBalance: bigint;
  tokenBalance: bigint;
}

/** Initial virtual token balance: T0 = S·V² / (V² − V0²), V = V0 + graduationThreshold. */
export function initialVirtualTokenBalance(
  config: Pick<CurveConfig, "graduationThreshold" | "initialVirtualReserve">,
): bigint {
  const v0 = config.initialVirtualReserve;
  const v = v0 + config.graduationThreshold;
  return (LAUNCHPAD_INITIAL_SUPPLY * v * v) / (v * v - v0 * v0);
}

function fees(amount: bigint, config: CurveConfig): { protocolFee: bigint; creatorFee: bigint } {
  return {
    protocolFee: (amount * config.protocolFeeBps) / BPS,
    creatorFee: (amount * config.creatorFeeBps) / BPS,
  };
}

/**
 * A buy paying `value` wei (gross). Fees are shares of the gross amount; a buy that would take the
 * real reserve past the threshold is capped (`reserveAmount` < `value`, the rest is refunded).
 */
export function computeBuy(state: CurveState, value: bigint, config: CurveConfig): CurveTrade {
  let reserveAmount = value;
  let { protocolFee, creatorFee } = fees(reserveAmount, config);
  let curveValue = reserveAmount - protocolFee - creatorFee;
  const remaining = config.initialVirtualReserve + config.graduationThreshold - state.reserveBalance;
  if (curveValue > remaining) {
    const denominator = BPS - config.protocolFeeBps - config.creatorFeeBps;
    reserveAmount = (remaining * BPS + denominator - 1n) / denominator;
    if (reserveAmount > value) reserveAmount = value;
    ({ protocolFee, creatorFee } = fees(reserveAmount, config));
    curveValue = reserveAmount - protocolFee - creatorFee;
  }
  const tokenAmount = (state.tokenBalance * curveValue) / (state.reserveBalance + curveValue);
  return {
    reserveAmount,
    tokenAmount,
    curveValue,
    protocolFee,
    creatorFee,
    reserveBalance: state.reserveBalance + curveValue,
    tokenBalance: state.tokenBalance - tokenAmount,
  };
}

/** A sell of `tokenAmount` base units: fees are shares of the curve value, the seller gets the rest. */
export function computeSell(state: CurveState, tokenAmount: bigint, config: CurveConfig): CurveTrade {
  const curveValue = (state.reserveBalance * tokenAmount) / (state.tokenBalance + tokenAmount);
  const { protocolFee, creatorFee } = fees(curveValue, config);
  return {
    reserveAmount: curveValue - protocolFee - creatorFee,
    tokenAmount,
    curveValue,
    protocolFee,
    creatorFee,
    reserveBalance: state.reserveBalance - curveValue,
    tokenBalance: state.tokenBalance + tokenAmount,
  };
}
