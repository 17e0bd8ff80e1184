import { parseAbi } from "viem";

/** The zonk.fun V3 events the Ponder side indexes (the same signatures as the platform's contracts). */
export const factoryAbi = parseAbi([
  "event TokenLaunchedV3(address indexed creator, address indexed token, address indexed curve, string protocolVersion, uint256 totalSupply, uint256 curveAllocation, uint256 lpAllocation, address initialCreatorPayout, address canonicalPool, bytes32 launchSeed, bytes32 candidateSalt, uint16 attemptIndex)",
]);

export const curveAbi = parseAbi([
  "event TokensBought(address indexed token, address indexed buyer, uint256 submittedGross, uint256 acceptedGross, uint256 netCurveInput, uint256 tokensOut, uint256 totalFee, uint256 creatorFee, uint256 protocolFee, uint256 communityFee, uint256 traderRewardsFee, uint256 refund)",
  "event TokensSold(address indexed token, address indexed seller, uint256 tokensIn, uint256 grossCurveOutput, uint256 netSellerOutput, uint256 totalFee, uint256 creatorFee, uint256 protocolFee, uint256 communityFee, uint256 traderRewardsFee)",
  "event Graduated(address indexed token, address indexed graduationManager, uint256 tokenAmount, uint256 ethAmount, uint256 soldSupply)",
]);

export const poolAbi = parseAbi([
  "event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)",
]);
