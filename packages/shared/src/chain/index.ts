import { parseAbi } from "viem";

/**
 * ABIs of the chain interface (DESIGN.md §2): the reference launchpad, ERC-20 `Transfer`,
 * the Uniswap V3 pool `Swap` and the Chainlink-style aggregator. Typed `as const` through
 * viem's `parseAbi`, so viem infers argument and result types.
 */

/** Every token of the launchpad has this fixed supply (10^9 whole tokens, 18 decimals). */
export const INITIAL_SUPPLY = 10n ** 27n;
/** 10^18: one whole token in base units; prices are wei per whole token. */
export const WAD = 10n ** 18n;
/** 2^96, the fixed-point base of Uniswap V3 `sqrtPriceX96`. */
export const Q96 = 1n << 96n;

/** Launchpad events and functions (names and argument orders fixed by DESIGN.md §2). */
export const launchpadAbi = parseAbi([
  "event TokenCreated(address indexed token, address indexed creator, string name, string symbol, uint256 initialSupply, uint256 reserveBalance, uint256 tokenBalance, uint256 graduationThreshold)",
  "event TokensBought(address indexed token, address indexed buyer, uint256 reserveAmount, uint256 tokenAmount, uint256 curveValue, uint256 protocolFee, uint256 creatorFee, uint256 reserveBalance, uint256 tokenBalance)",
  "event TokensSold(address indexed token, address indexed seller, uint256 reserveAmount, uint256 tokenAmount, uint256 curveValue, uint256 protocolFee, uint256 creatorFee, uint256 reserveBalance, uint256 tokenBalance)",
  "event TokenGraduated(address indexed token, address indexed pool, uint256 reserveAmount, uint256 tokenAmount)",
  "function createToken(string name, string symbol) payable returns (address token)",
  "function buy(address token, uint256 minTokenAmount) payable returns (uint256 tokenAmount)",
  "function sell(address token, uint256 tokenAmount, uint256 minReserveAmount) returns (uint256 reserveAmount)",
  "function quoteBuy(address token, uint256 reserveIn) view returns (uint256 tokenAmount)",
  "function quoteSell(address token, uint256 tokenIn) view returns (uint256 reserveAmount)",
  "function INITIAL_SUPPLY() view returns (uint256)",
]);

/** ERC-20 `Transfer` plus the views clients use. */
export const erc20Abi = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "function balanceOf(address account) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function decimals() view returns (uint8)",
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function approve(address spender, uint256 value) returns (bool)",
  "function transfer(address to, uint256 value) returns (bool)",
]);

/** Uniswap V3 pool: the `Swap` event and the views needed to price and order tokens. */
export const uniswapV3PoolAbi = parseAbi([
  "event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)",
  "function token0() view returns (address)",
  "function token1() view returns (address)",
  "function fee() view returns (uint24)",
  "function liquidity() view returns (uint128)",
  "function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)",
]);

/** Chainlink `AggregatorV3Interface` plus the `AnswerUpdated` event (ETH/USD and sequencer uptime feeds). */
export const aggregatorV3Abi = parseAbi([
  "event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)",
  "function decimals() view returns (uint8)",
  "function description() view returns (string)",
  "function version() view returns (uint256)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
  "function getRoundData(uint80 roundId) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
]);

/** Test-only setters of the devnet feeds (DESIGN.md §13). */
export const devnetFeedAbi = parseAbi([
  "function setRoundData(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
  "function setStatus(int256 answer, uint256 startedAt)",
]);
