import { parseAbi } from "viem";

/**
 * ABIs of the chain interface: the zonk.fun V3 contract set (factory, per-token
 * curve, graduation manager, fee manager, with the LP custodian and residual escrow events),
 * ERC-20 `Transfer`, the Uniswap V3 pool `Swap` and the Chainlink-style aggregator. Typed `as const`
 * through viem's `parseAbi`, so viem infers argument and result types. Constants and the curve's
 * integer math are in `zonk-v3-math.ts` (re-exported here).
 */

export * from "./rewards-merkle.js";
export * from "./zonk-v3-math.js";

import { TOTAL_SUPPLY } from "./zonk-v3-math.js";

/** Every token has this fixed supply (10^9 whole tokens, 18 decimals); same as {@link TOTAL_SUPPLY}. */
export const INITIAL_SUPPLY = TOTAL_SUPPLY;

/**
 * zonk.fun V3 factory (`ZonkFactoryV3`): `createToken` (selector `0x72c46e10`), the launch event
 * (`TokenLaunchedV3`, the last log of a launch transaction), registry views and custom errors.
 */
export const zonkFactoryV3Abi = parseAbi([
  "event TokenLaunchedV3(address indexed creator, address indexed token, address indexed curve, string protocolVersion, uint256 totalSupply, uint256 curveAllocation, uint256 lpAllocation, address initialCreatorPayout, address canonicalPool, bytes32 launchSeed, bytes32 candidateSalt, uint16 attemptIndex)",
  "function createToken(string name, string symbol, bytes32 userSalt) returns (address token, address curve)",
  "function tokenInfo(address token) view returns (address creator, address curve)",
  "function isToken(address token) view returns (bool)",
  "function curveOf(address token) view returns (address)",
  "function tokensByCreator(address creator) view returns (address[])",
  "function PROTOCOL_VERSION() view returns (string)",
  "function protocolVersionHash() view returns (bytes32)",
  "function graduationManager() view returns (address)",
  "function feeManager() view returns (address)",
  "function TOTAL_SUPPLY() view returns (uint256)",
  "function CURVE_ALLOCATION() view returns (uint256)",
  "function LP_ALLOCATION() view returns (uint256)",
  "error DuplicateToken()",
  "error InvalidTokenName()",
  "error InvalidTokenSymbol()",
  "error InvalidUserSalt()",
  "error NoAcceptableTokenAddress(bytes32 launchSeed)",
]);

/**
 * zonk.fun V3 per-token curve (`ZonkCurveV3`): trading, quotes (structs `BuyQuote`/`SellQuote` as
 * the platform returns them), state views, events and custom errors. Every event's first, indexed
 * argument is the token (except `GraduationReserveForwarded`, which has no token argument).
 */
export const zonkCurveV3Abi = parseAbi([
  "struct BuyQuote { uint256 submittedGross; uint256 acceptedGross; uint256 totalFee; uint256 creatorFee; uint256 protocolFee; uint256 communityFee; uint256 traderRewardsFee; uint256 netCurveInput; uint256 refund; uint256 tokensOut; bool reachesGraduation; }",
  "struct SellQuote { uint256 tokensIn; uint256 grossCurveOutput; uint256 totalFee; uint256 creatorFee; uint256 protocolFee; uint256 communityFee; uint256 traderRewardsFee; uint256 netSellerOutput; }",
  "struct FeeSplit { uint256 totalFee; uint256 creatorFee; uint256 protocolFee; uint256 communityFee; uint256 traderRewardsFee; }",
  "event TokensBought(address indexed token, address indexed buyer, uint256 submittedGross, uint256 acceptedGross, uint256 netCurveInput, uint256 tokensOut, uint256 totalFee, uint256 creatorFee, uint256 protocolFee, uint256 communityFee, uint256 traderRewardsFee, uint256 refund)",
  "event TokensSold(address indexed token, address indexed seller, uint256 tokensIn, uint256 grossCurveOutput, uint256 netSellerOutput, uint256 totalFee, uint256 creatorFee, uint256 protocolFee, uint256 communityFee, uint256 traderRewardsFee)",
  "event Graduated(address indexed token, address indexed graduationManager, uint256 tokenAmount, uint256 ethAmount, uint256 soldSupply)",
  "event GraduationReserveForwarded(uint256 terminalReserveCoordinate, uint256 ethForwarded)",
  "function buy(uint256 minTokensOut, uint256 deadline) payable returns (BuyQuote quote)",
  "function sell(uint256 tokensIn, uint256 minEthOut, uint256 deadline) returns (SellQuote quote)",
  "function quoteBuy(uint256 grossInput) view returns (BuyQuote quote)",
  "function quoteSell(uint256 tokensIn) view returns (SellQuote quote)",
  "function spotPrice() view returns (uint256)",
  "function soldSupply() view returns (uint256)",
  "function virtualTokenReserve() view returns (uint256)",
  "function virtualEthReserve() view returns (uint256)",
  "function reserveCoordinate() view returns (uint256)",
  "function activeEthReserve() view returns (uint256)",
  "function graduated() view returns (bool)",
  "function token() view returns (address)",
  "function creator() view returns (address)",
  "function factory() view returns (address)",
  "function feeManager() view returns (address)",
  "function graduationManager() view returns (address)",
  "function grossRequiredForNet(uint256 netAmount) pure returns (uint256)",
  "function splitFee(uint256 grossAmount) pure returns (FeeSplit fees)",
  "error DeadlineExpired()",
  "error DustTrade()",
  "error GraduationAccountingMismatch()",
  "error InsufficientCurveInventory()",
  "error InsufficientReserve()",
  "error InvalidAmount()",
  "error NativeTransferFailed()",
  "error SlippageExceeded()",
  "error TradingClosed()",
  "error UnexpectedEther()",
]);

/**
 * zonk.fun V3 graduation manager (`GraduationManagerV3`): `LaunchRegistered` (canonical pool created
 * and initialized at launch), `graduate` (called by the curve with the ETH) and `GraduatedV3`
 * (full-range position minted to the token's LP custodian), plus its views.
 */
export const graduationManagerV3Abi = parseAbi([
  "event LaunchRegistered(address indexed token, address indexed curve, address indexed creator, address pool, bytes32 launchSeed, bytes32 candidateSalt, uint16 attemptIndex)",
  "event GraduatedV3(address indexed token, address indexed custodian, uint256 indexed tokenId, uint128 liquidity)",
  "function graduate(address token, address creator, uint256 tokenAmount, uint256 ethAmount) payable",
  "function factory() view returns (address)",
  "function weth() view returns (address)",
  "function uniswapV3Factory() view returns (address)",
  "function nonfungiblePositionManager() view returns (address)",
  "function canonicalPoolOf(address token) view returns (address)",
  "function expectedSqrtPriceX96(address token) view returns (uint160)",
  "function custodianOf(address token) view returns (address)",
  "function residualEscrowOf(address token) view returns (address)",
  "function lpFeeVault() view returns (address)",
  "function launchOf(address token) view returns (address curve, address creator, bool registered, bool graduated)",
  "function POOL_FEE() view returns (uint24)",
  "function POOL_TICK_SPACING() view returns (int24)",
]);

/**
 * zonk.fun V3 fee manager (`FeeManagerV3`): fee custody events (not trades), the creator's claims
 * and payout hand-over (propose by the current payout address, accept by the proposed one, or
 * cancel), forwarding of a token's community / trader-rewards shares (native ETH) to the two
 * ecosystem vaults, and the accrual views (wei; `creatorFeesAccrued(token)` = earned − claimed).
 */
export const feeManagerV3Abi = parseAbi([
  "event TokenRegistered(address indexed token, address indexed curve, address indexed creator, address payout)",
  "event FeesDeposited(address indexed token, address indexed curve, bool indexed isBuy, uint256 totalFee, uint256 creatorFee, uint256 protocolFee, uint256 communityFee, uint256 traderRewardsFee)",
  "event CreatorFeesClaimed(address indexed token, address indexed payout, address indexed triggeredBy, uint256 amount)",
  "event ProtocolFeesClaimed(address indexed treasury, address indexed triggeredBy, uint256 amount)",
  "event CreatorPayoutProposed(address indexed token, address indexed currentPayout, address indexed proposedPayout)",
  "event CreatorPayoutAccepted(address indexed token, address indexed previousPayout, address indexed newPayout)",
  "event CreatorPayoutCancelled(address indexed token, address indexed cancelledPayout)",
  "event CommunityVaultFunded(address indexed token, address indexed vault, uint256 amount, address caller)",
  "event TraderRewardsVaultFunded(address indexed token, address indexed vault, uint256 amount, address caller)",
  "event EcosystemVaultsSet(address indexed communityVault, address indexed traderRewardsVault)",
  "function depositFees(address token, uint256 totalFee, uint256 creatorFee, uint256 protocolFee, uint256 communityFee, uint256 traderRewardsFee, bool isBuy) payable",
  "function claimCreatorFees(address token) returns (uint256 amount)",
  "function claimProtocolFees() returns (uint256 amount)",
  "function proposeCreatorPayout(address token, address proposedPayout)",
  "function acceptCreatorPayout(address token)",
  "function cancelCreatorPayout(address token)",
  "function fundCommunityVault(address token) returns (uint256 amount)",
  "function fundTraderRewardsVault(address token) returns (uint256 amount)",
  "function factory() view returns (address)",
  "function treasury() view returns (address)",
  "function communityVault() view returns (address)",
  "function traderRewardsVault() view returns (address)",
  "function curveOf(address token) view returns (address)",
  "function creatorOf(address token) view returns (address)",
  "function creatorPayoutOf(address token) view returns (address)",
  "function pendingCreatorPayoutOf(address token) view returns (address)",
  "function protocolFeesAccrued() view returns (uint256)",
  "function creatorFeesAccrued(address token) view returns (uint256)",
  "function totalCreatorFeesAccrued() view returns (uint256)",
  "function communityFeesAccrued() view returns (uint256)",
  "function traderRewardsFeesAccrued() view returns (uint256)",
  "function communityFeesAccruedByToken(address token) view returns (uint256)",
  "function traderRewardsFeesAccruedByToken(address token) view returns (uint256)",
  "function totalLiabilities() view returns (uint256)",
  "error NothingToClaim()",
  "error NothingToFund()",
  "error InvalidPayoutRecipient()",
  "error CreatorPayoutUnchanged()",
  "error UnauthorizedCreator()",
  "error UnauthorizedPendingPayout()",
  "error NoPendingProposal()",
]);

/**
 * Per-token contracts created at graduation and the deployment's LP fee vault: the ownerless LP
 * custodian that holds the position NFT (`PermanentPositionRegistered`) and collects its fees
 * (`collectFees()`, `PermanentFeesCollected`) into the permanent LP fee vault (`feeVault()`;
 * the vault emits `PermanentLPFeesAccrued`), which forwards a token's community and trader-rewards
 * shares to the deployment's community vault and trader-rewards vault (`fundCommunityVault`,
 * `fundTraderRewardsVault`; `CommunityLPFeesForwarded` / `TraderRewardsLPFeesForwarded` name the
 * vault; getters `communityVault()` / `traderRewardsVault()`), and the residual escrow that keeps
 * the mint's rounding remainder (`ResidualDeposited`; its address is the emitter). All are
 * platform contracts for holder counts.
 */
export const graduationCustodyV3Abi = parseAbi([
  "event PermanentPositionRegistered(address indexed launchToken, uint256 indexed tokenId, address indexed positionManager, int24 tickLower, int24 tickUpper)",
  "event PermanentFeesCollected(uint256 indexed tokenId, uint256 amount0, uint256 amount1)",
  "event PermanentLPFeesAccrued(address indexed launchToken, address indexed custodian, address indexed asset, address protocolRecipient, address creatorRecipient, uint256 creatorShare, uint256 protocolShare, uint256 communityShare, uint256 traderRewardsShare)",
  "event ResidualDeposited(address indexed launchToken, address indexed asset, uint256 amount)",
  "event CommunityLPFeesForwarded(address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller)",
  "event TraderRewardsLPFeesForwarded(address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller)",
  "function communityVault() view returns (address)",
  "function traderRewardsVault() view returns (address)",
  "function fundCommunityVault(address launchToken, address asset) returns (uint256 amount)",
  "function fundTraderRewardsVault(address launchToken, address asset) returns (uint256 amount)",
  "function launchToken() view returns (address)",
  "function positionTokenId() view returns (uint256)",
  "function feeVault() view returns (address)",
  "function collectFees() returns (uint256 amount0, uint256 amount1)",
]);

/**
 * zonk.fun V3 permanent LP fee vault (`PermanentLPFeeVaultV3`, the graduation manager's
 * `lpFeeVault()`): the custodians' collections split per asset (`PermanentLPFeesAccrued`: creator
 * 25 %, community 30 %, trader rewards 15 %, protocol the rest: 30 %); the protocol and creator shares
 * accrue per recipient and asset (the fee manager's treasury and the token's payout address at
 * collection time) and are claimed by the recipient (`claimLPFees(asset)`, one event per share);
 * the community and trader-rewards shares accrue per (launch token, asset) until forwarded to the
 * two ecosystem vaults. Assets are the launch token and WETH (ERC-20 base units).
 */
export const permanentLPFeeVaultV3Abi = parseAbi([
  "event PermanentLPFeesAccrued(address indexed launchToken, address indexed custodian, address indexed asset, address protocolRecipient, address creatorRecipient, uint256 creatorShare, uint256 protocolShare, uint256 communityShare, uint256 traderRewardsShare)",
  "event ProtocolLPFeesClaimed(address indexed recipient, address indexed asset, uint256 amount)",
  "event CreatorLPFeesClaimed(address indexed recipient, address indexed asset, uint256 amount)",
  "event CommunityLPFeesForwarded(address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller)",
  "event TraderRewardsLPFeesForwarded(address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller)",
  "function claimLPFees(address asset) returns (uint256 protocolAmount, uint256 creatorAmount)",
  "function fundCommunityVault(address launchToken, address asset) returns (uint256 amount)",
  "function fundTraderRewardsVault(address launchToken, address asset) returns (uint256 amount)",
  "function graduationManager() view returns (address)",
  "function feeManager() view returns (address)",
  "function communityVault() view returns (address)",
  "function traderRewardsVault() view returns (address)",
  "function protocolLPFeesAccrued(address recipient, address asset) view returns (uint256)",
  "function creatorLPFeesAccrued(address recipient, address asset) view returns (uint256)",
  "function communityLPFeesAccrued(address launchToken, address asset) view returns (uint256)",
  "function traderRewardsLPFeesAccrued(address launchToken, address asset) view returns (uint256)",
  "function totalLPFeesAccrued(address asset) view returns (uint256)",
]);

/**
 * zonk.fun V3 community vault (`TokenCommunityVaultV3`, the fee manager's `communityVault()`):
 * funded per (launch token, asset) by the fee manager (native ETH, asset = zero address, source =
 * the fee manager) and the LP fee vault (the token or WETH, source = the LP fee vault); anyone
 * forwards a token's balance of an asset to the treasury. `accrued(token, asset)` = funded −
 * forwarded.
 */
export const tokenCommunityVaultV3Abi = parseAbi([
  "event CommunityFunded(address indexed launchToken, address indexed asset, address indexed source, uint256 amount)",
  "event CommunityFundsForwarded(address indexed launchToken, address indexed asset, address indexed treasury, uint256 amount, address caller)",
  "function forwardToTreasury(address launchToken, address asset) returns (uint256 amount)",
  "function feeManager() view returns (address)",
  "function permanentLPFeeVault() view returns (address)",
  "function treasury() view returns (address)",
  "function accrued(address launchToken, address asset) view returns (uint256)",
  "function totalAccrued(address asset) view returns (uint256)",
]);

/**
 * zonk.fun V3 trader-rewards vault (`TraderRewardsVaultV3`, the fee manager's
 * `traderRewardsVault()`): funded like the community vault (`TraderRewardsFunded`), paid out only
 * by the distributor's claims (`TraderRewardPaid`). `accrued(token, asset)` = funded − paid.
 */
export const traderRewardsVaultV3Abi = parseAbi([
  "event TraderRewardsFunded(address indexed launchToken, address indexed asset, address indexed source, uint256 amount)",
  "event TraderRewardPaid(address indexed launchToken, address indexed asset, address indexed claimant, uint256 amount)",
  "function feeManager() view returns (address)",
  "function permanentLPFeeVault() view returns (address)",
  "function distributor() view returns (address)",
  "function accrued(address launchToken, address asset) view returns (uint256)",
  "function totalAccrued(address asset) view returns (uint256)",
]);

/**
 * zonk.fun V3 trader-rewards distributor (`TraderRewardsDistributorV3`, the trader-rewards vault's
 * `distributor()`): its owner publishes one immutable Merkle root per (epoch, launch token, asset)
 * (`distributionId` = keccak256(abi.encode(epoch, launchToken, asset))); a claimant claims its
 * leaf (`leafHash` = keccak256(abi.encode(id, claimant, amount))) once with a sorted-pair proof
 * (see `merkle/rewards-tree`), paid by the trader-rewards vault.
 */
export const traderRewardsDistributorV3Abi = parseAbi([
  "event DistributionPublished(bytes32 indexed distributionId, uint256 indexed epoch, address indexed launchToken, address asset, bytes32 root)",
  "event RewardClaimed(bytes32 indexed distributionId, uint256 indexed epoch, address indexed launchToken, address asset, address claimant, uint256 amount)",
  "function publishRoot(uint256 epoch, address launchToken, address asset, bytes32 root) returns (bytes32 id)",
  "function claim(uint256 epoch, address launchToken, address asset, uint256 amount, bytes32[] proof)",
  "function distributionId(uint256 epoch, address launchToken, address asset) pure returns (bytes32)",
  "function leafHash(bytes32 id, address claimant, uint256 amount) pure returns (bytes32)",
  "function owner() view returns (address)",
  "function rewardsVault() view returns (address)",
  "function roots(bytes32 id) view returns (bytes32)",
  "function claimed(bytes32 id, address claimant) view returns (bool)",
  "error AlreadyClaimed()",
  "error DistributionAlreadyPublished()",
  "error DistributionNotPublished()",
  "error InvalidAmount()",
  "error InvalidMerkleProof()",
  "error InvalidRoot()",
  "error InvalidToken()",
  "error Unauthorized()",
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

/**
 * Chainlink `AggregatorProxy` (a feed's stable address, as on Base): the current phase's aggregator
 * (the contract that emits `AnswerUpdated`), every phase's aggregator, and the replacement events.
 */
export const aggregatorProxyAbi = parseAbi([
  "event AggregatorProposed(address indexed current, address indexed proposed)",
  "event AggregatorConfirmed(address indexed previous, address indexed latest)",
  "function aggregator() view returns (address)",
  "function phaseId() view returns (uint16)",
  "function phaseAggregators(uint16 phaseId) view returns (address)",
]);
