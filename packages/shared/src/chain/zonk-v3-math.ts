/**
 * Constants and integer math of the zonk.fun V3 curve (protocol version `endpoint-cp-v3`), mirroring
 * the contracts bit for bit: same formulas, same rounding, same graduation cap. All amounts are
 * bigint base units (wei; token base units, 18 decimals); prices are wei per whole token (10^18
 * base units). Used by the indexer (curve state and prices from events), the devnet simulator and
 * tests (predicting trades) and the contract tests (checking the Solidity against this mirror).
 */

/** Protocol version string of the V3 contract set (`PROTOCOL_VERSION()` of factory and curves). */
export const PROTOCOL_VERSION = "endpoint-cp-v3";
/** 10^18: one whole token (or one ETH) in base units; prices are wei per whole token. */
export const WAD = 10n ** 18n;
/** 2^96, the fixed-point base of Uniswap V3 `sqrtPriceX96`. */
export const Q96 = 1n << 96n;

/** Supply of every token: 1,000,000,000 × 10^18, all minted to its curve at launch. */
export const TOTAL_SUPPLY = 1_000_000_000n * WAD;
/** Tokens sold on the curve before graduation: 800,000,000 × 10^18 (the API's `graduation_threshold`). */
export const CURVE_ALLOCATION = 800_000_000n * WAD;
/** Tokens that go into the canonical pool at graduation: 200,000,000 × 10^18. */
export const LP_ALLOCATION = 200_000_000n * WAD;
/** Virtual token reserve VTR at launch (`virtualTokenReserve()` = VTR − soldSupply). */
export const VIRTUAL_TOKEN_RESERVE = 1_066_666_666_666_666_666_666_666_667n;
/** Virtual ETH reserve VER at launch (`virtualEthReserve()` = VER + reserveCoordinate). */
export const VIRTUAL_ETH_RESERVE = WAD;
/** Constant product K = VTR × VER. */
export const CURVE_K = VIRTUAL_TOKEN_RESERVE * VIRTUAL_ETH_RESERVE;
/** Net ETH in the curve at which it graduates (3 ETH); then all 800 M curve tokens are sold. */
export const GRADUATION_NET_ETH = 3n * WAD;
/** Curve fee: 100 bps (1 %) of the gross ETH amount of every buy and sell. */
export const FEE_BPS = 100n;
/** Denominator of {@link FEE_BPS}. */
export const FEE_DENOMINATOR = 10_000n;
/** Creator share of the total fee, percent (floored). */
export const CREATOR_FEE_PERCENT = 35n;
/** Community share of the total fee, percent (floored). */
export const COMMUNITY_FEE_PERCENT = 20n;
/** Trader-rewards share of the total fee, percent (floored); the protocol gets the remainder. */
export const TRADER_REWARDS_FEE_PERCENT = 15n;
/** `spotPrice()` at launch: 937,500,000 wei per whole token. */
export const INITIAL_PRICE = 937_500_000n;
/** `spotPrice()` at graduation (and the canonical pool's initial price): 15,000,000,000 wei per whole token. */
export const TERMINAL_PRICE = 15_000_000_000n;
/** Gross ETH of a buy that takes an untouched curve exactly to graduation (3 ETH net + 1 % fee). */
export const EXACT_GRADUATION_GROSS = 3_030_303_030_303_030_303n;
/** Fee tier of the canonical token/WETH Uniswap V3 pool (1 %). */
export const POOL_FEE = 10_000;
/** Canonical pool's initial `sqrtPriceX96` when the token is token0: floor(sqrt(15e9 / 1e18 × 2^192)). */
export const TERMINAL_SQRT_PRICE_X96_TOKEN0 = 9_703_428_570_912_459_262_669_888n;
/** Canonical pool's initial `sqrtPriceX96` when WETH is token0: floor(sqrt(1e18 / 15e9 × 2^192)). */
export const TERMINAL_SQRT_PRICE_X96_TOKEN1 = 646_895_238_060_830_617_511_325_894_307_352n;

/** The five shares of a curve fee (`splitFee`); they always sum to `totalFee`. */
export interface FeeSplit {
  totalFee: bigint;
  creatorFee: bigint;
  protocolFee: bigint;
  communityFee: bigint;
  traderRewardsFee: bigint;
}

/** A curve buy as `quoteBuy(grossInput)` returns it and `TokensBought` reports it. */
export interface BuyQuote extends FeeSplit {
  submittedGross: bigint;
  /** Gross ETH the curve keeps (≤ submitted; capped at the amount that completes graduation). */
  acceptedGross: bigint;
  netCurveInput: bigint;
  /** `submittedGross − acceptedGross`, sent back in the same transaction. */
  refund: bigint;
  tokensOut: bigint;
  reachesGraduation: boolean;
}

/** A curve sell as `quoteSell(tokensIn)` returns it and `TokensSold` reports it. */
export interface SellQuote extends FeeSplit {
  tokensIn: bigint;
  grossCurveOutput: bigint;
  netSellerOutput: bigint;
}

/** State of one curve: what its views derive everything from. */
export interface CurveState {
  /** `soldSupply()`: curve tokens held outside the curve (token base units). */
  soldSupply: bigint;
  /** `reserveCoordinate()`: net ETH held by the curve; after graduation the terminal 3 ETH (wei). */
  reserveCoordinate: bigint;
  /** `graduated()`: trading on the curve is closed. */
  graduated: boolean;
}

/** Custom error names of the curve, as its quote functions revert. */
export type CurveErrorName =
  | "InvalidAmount"
  | "TradingClosed"
  | "DustTrade"
  | "InsufficientCurveInventory"
  | "InsufficientReserve"
  | "GraduationAccountingMismatch";

/** Thrown by the quote mirrors where the contract reverts; `name` is the contract's custom error. */
export class CurveMathError extends Error {
  constructor(readonly errorName: CurveErrorName) {
    super(`curve would revert: ${errorName}`);
    this.name = "CurveMathError";
  }
}

/** State of a curve right after launch. */
export const INITIAL_CURVE_STATE: Readonly<CurveState> = Object.freeze({
  soldSupply: 0n,
  reserveCoordinate: 0n,
  graduated: false,
});

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  if (numerator === 0n) return 0n;
  return (numerator - 1n) / denominator + 1n;
}

/** `virtualTokenReserve()`: VTR − soldSupply (token base units). */
export function virtualTokenReserve(soldSupply: bigint): bigint {
  return VIRTUAL_TOKEN_RESERVE - soldSupply;
}

/** `virtualEthReserve()`: VER + reserveCoordinate (wei). */
export function virtualEthReserve(reserveCoordinate: bigint): bigint {
  return VIRTUAL_ETH_RESERVE + reserveCoordinate;
}

/**
 * `spotPrice()`: ceil((VER + reserveCoordinate) × 10^18 / (VTR − soldSupply)), wei per whole token.
 * 937,500,000 at launch, 15,000,000,000 at graduation.
 */
export function curveSpotPrice(soldSupply: bigint, reserveCoordinate: bigint): bigint {
  return ceilDiv(virtualEthReserve(reserveCoordinate) * WAD, virtualTokenReserve(soldSupply));
}

/**
 * `splitFee(gross)`: total = floor(gross × 100 / 10,000); creator, community and trader-rewards
 * shares are floor(total × pct / 100); the protocol gets the remainder.
 */
export function splitFee(grossAmount: bigint): FeeSplit {
  const totalFee = (grossAmount * FEE_BPS) / FEE_DENOMINATOR;
  const creatorFee = (totalFee * CREATOR_FEE_PERCENT) / 100n;
  const communityFee = (totalFee * COMMUNITY_FEE_PERCENT) / 100n;
  const traderRewardsFee = (totalFee * TRADER_REWARDS_FEE_PERCENT) / 100n;
  const protocolFee = totalFee - creatorFee - communityFee - traderRewardsFee;
  return { totalFee, creatorFee, protocolFee, communityFee, traderRewardsFee };
}

/**
 * `grossRequiredForNet(net)`: the smallest gross whose net after the 1 % fee is exactly `net`
 * (net + floor((net − 1) / 99)). `grossRequiredForNet(3 ETH)` = {@link EXACT_GRADUATION_GROSS}.
 * @throws CurveMathError `GraduationAccountingMismatch` if no gross has that net (never for real inputs).
 */
export function grossRequiredForNet(netAmount: bigint): bigint {
  if (netAmount === 0n) return 0n;
  const adjustment = (netAmount - 1n) / ((FEE_DENOMINATOR - FEE_BPS) / FEE_BPS);
  const gross = netAmount + adjustment;
  if (gross - splitFee(gross).totalFee !== netAmount) {
    throw new CurveMathError("GraduationAccountingMismatch");
  }
  return gross;
}

/**
 * `quoteBuy(grossInput)` on a curve in `state`. A buy whose net would reach 3 ETH is capped at the
 * exact gross that completes graduation (the rest is `refund`) and takes all remaining inventory;
 * otherwise tokensOut = virtualTokenReserve − ceil(K / (VER + reserve + net)).
 * @throws CurveMathError where the contract reverts (`InvalidAmount`, `TradingClosed`, `DustTrade`, ...).
 */
export function quoteBuy(state: CurveState, grossInput: bigint): BuyQuote {
  if (grossInput <= 0n) throw new CurveMathError("InvalidAmount");
  if (state.graduated) throw new CurveMathError("TradingClosed");
  const netNeeded = GRADUATION_NET_ETH - state.reserveCoordinate;
  const submittedNet = grossInput - splitFee(grossInput).totalFee;
  const acceptedGross = submittedNet >= netNeeded ? grossRequiredForNet(netNeeded) : grossInput;
  const fees = splitFee(acceptedGross);
  const netCurveInput = acceptedGross - fees.totalFee;
  const postReserve = state.reserveCoordinate + netCurveInput;
  if (postReserve > GRADUATION_NET_ETH) throw new CurveMathError("GraduationAccountingMismatch");
  const reachesGraduation = postReserve === GRADUATION_NET_ETH;
  const remainingInventory = CURVE_ALLOCATION - state.soldSupply;
  const tokensOut = reachesGraduation
    ? remainingInventory
    : virtualTokenReserve(state.soldSupply) - ceilDiv(CURVE_K, VIRTUAL_ETH_RESERVE + postReserve);
  if (tokensOut === 0n) throw new CurveMathError("DustTrade");
  if (tokensOut > remainingInventory) throw new CurveMathError("InsufficientCurveInventory");
  return {
    submittedGross: grossInput,
    acceptedGross,
    ...fees,
    netCurveInput,
    refund: grossInput - acceptedGross,
    tokensOut,
    reachesGraduation,
  };
}

/**
 * `quoteSell(tokensIn)` on a curve in `state`: grossCurveOutput = virtualEthReserve −
 * ceil(K / (VTR − (soldSupply − tokensIn))), the 1 % fee on it, the seller gets the rest.
 * @throws CurveMathError where the contract reverts (`TradingClosed`, `InvalidAmount`, `DustTrade`, `InsufficientReserve`).
 */
export function quoteSell(state: CurveState, tokensIn: bigint): SellQuote {
  if (state.graduated) throw new CurveMathError("TradingClosed");
  if (tokensIn <= 0n || tokensIn > state.soldSupply) throw new CurveMathError("InvalidAmount");
  const postSold = state.soldSupply - tokensIn;
  const postVirtualEth = ceilDiv(CURVE_K, VIRTUAL_TOKEN_RESERVE - postSold);
  const grossCurveOutput = virtualEthReserve(state.reserveCoordinate) - postVirtualEth;
  if (grossCurveOutput <= 0n) throw new CurveMathError("DustTrade");
  if (grossCurveOutput > state.reserveCoordinate) throw new CurveMathError("InsufficientReserve");
  const fees = splitFee(grossCurveOutput);
  return { tokensIn, grossCurveOutput, ...fees, netSellerOutput: grossCurveOutput - fees.totalFee };
}

/**
 * Curve state after a buy (from a quote or the `TokensBought` fields): soldSupply += tokensOut,
 * reserveCoordinate += netCurveInput; graduated when the reserve reaches 3 ETH (the reserve
 * coordinate then stays at that terminal value).
 */
export function applyBuy(
  state: CurveState,
  trade: Pick<BuyQuote, "tokensOut" | "netCurveInput">,
): CurveState {
  const reserveCoordinate = state.reserveCoordinate + trade.netCurveInput;
  return {
    soldSupply: state.soldSupply + trade.tokensOut,
    reserveCoordinate,
    graduated: state.graduated || reserveCoordinate >= GRADUATION_NET_ETH,
  };
}

/** Curve state after a sell (from a quote or the `TokensSold` fields). */
export function applySell(
  state: CurveState,
  trade: Pick<SellQuote, "tokensIn" | "grossCurveOutput">,
): CurveState {
  return {
    soldSupply: state.soldSupply - trade.tokensIn,
    reserveCoordinate: state.reserveCoordinate - trade.grossCurveOutput,
    graduated: state.graduated,
  };
}

/** True when `token` sorts below `weth` (numerically), i.e. the token is token0 of its pool. */
export function isToken0(token: string, weth: string): boolean {
  return BigInt(token) < BigInt(weth);
}

/**
 * Pool marginal price of the token in wei per whole token from a Uniswap V3 `sqrtPriceX96`,
 * floored (both assets have 18 decimals): token is token0 → sqrtP² × 10^18 / 2^192; token is
 * token1 → 2^192 × 10^18 / sqrtP². Null when `sqrtPriceX96` is 0 or the price floors to 0.
 */
export function poolPriceFromSqrtPriceX96(sqrtPriceX96: bigint, tokenIsToken0: boolean): bigint | null {
  if (sqrtPriceX96 <= 0n) return null;
  const squared = sqrtPriceX96 * sqrtPriceX96;
  const q192 = Q96 * Q96;
  const price = tokenIsToken0 ? (squared * WAD) / q192 : (q192 * WAD) / squared;
  return price > 0n ? price : null;
}

/**
 * The platform's deployment on Base mainnet (chain id 8453): its V3 contracts, WETH, Uniswap V3 and
 * the Chainlink ETH/USD feed (8 decimals). `startBlock` is the factory's deployment block. Addresses
 * lowercase.
 */
export const BASE_MAINNET = Object.freeze({
  chainId: 8453,
  startBlock: 50_184_361,
  contracts: Object.freeze({
    factory: "0x90b371f571975a0b0693dc3c46eea19733c72ddd",
    graduationManager: "0x5917ce7aff3a5f276334464e3dea2a96e94c81d8",
    feeManager: "0x016b62b2597954a0c3c2a3a800a9ec29182a1915",
    weth: "0x4200000000000000000000000000000000000006",
    uniswapV3Factory: "0x33128a8fc17869897dce68ed026d694621f6fdfd",
    nonfungiblePositionManager: "0x03a520b32c04bf3beef7beb72e919cf822ed34f1",
    swapRouter: "0x2626664c2603336e57b271c5c0b26f421741e481",
    ethUsdFeed: "0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70",
  }),
} as const);
