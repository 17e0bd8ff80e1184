// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Minimal views of the Uniswap V3 contracts the launch family talks to.
interface IUniswapV3FactoryLike {
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
    function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
    function feeAmountTickSpacing(uint24 fee) external view returns (int24);
}

interface IUniswapV3PoolLike {
    function initialize(uint160 sqrtPriceX96) external;
    function liquidity() external view returns (uint128);
    function slot0()
        external
        view
        returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
        );
}

interface INonfungiblePositionManagerLike {
    struct MintParams {
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        address recipient;
        uint256 deadline;
    }

    struct CollectParams {
        uint256 tokenId;
        address recipient;
        uint128 amount0Max;
        uint128 amount1Max;
    }

    function mint(MintParams calldata params)
        external
        payable
        returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    function collect(CollectParams calldata params) external payable returns (uint256 amount0, uint256 amount1);
    function ownerOf(uint256 tokenId) external view returns (address);
}

interface IWETH9Like {
    function deposit() external payable;
}

/// @notice What the factory and the curve need from the fee manager (`FeeManagerV3`, where the
/// parameters are named and documented).
interface IZonkFeeManagerV3 {
    /// @dev (token, curve, creator).
    function registerToken(address, address, address) external;
    /// @dev (token, totalFee, creatorFee, protocolFee, communityFee, traderRewardsFee, isBuy).
    function depositFees(address, uint256, uint256, uint256, uint256, uint256, bool) external payable;
}

/// @notice What the factory and the curve need from the graduation manager (`GraduationManagerV3`,
/// where the parameters are named and documented).
interface IZonkGraduationManagerV3 {
    /// @dev (token, curve, creator, launchSeed, candidateSalt, attemptIndex) → the canonical pool.
    function registerLaunch(address, address, address, bytes32, bytes32, uint16) external returns (address);
    /// @dev (token, creator, tokenAmount, ethAmount).
    function graduate(address, address, uint256, uint256) external payable;
    function weth() external view returns (address);
    function uniswapV3Factory() external view returns (address);
}

interface IZonkTokenV3 {
    function initialize(address inventoryOwner) external;
}

/// @notice What a fee manager or the permanent LP fee vault needs from an ecosystem vault
/// (`TokenCommunityVaultV3`, `TraderRewardsVaultV3`).
interface IEcosystemVaultFundingV3 {
    /// @dev (launchToken): native ETH for `launchToken` as value.
    function depositNative(address) external payable;
    /// @dev (launchToken, asset, amount): an ERC-20 amount already transferred to the vault.
    function recordERC20Funding(address, address, uint256) external;
}

/// @notice A contract bound to one fee manager (the ecosystem vaults).
interface IFeeManagerBoundV3 {
    function feeManager() external view returns (address);
}

/// @notice What the permanent LP fee vault needs from the fee manager.
interface IFeeManagerViewsV3 {
    function treasury() external view returns (address);
    function creatorPayoutOf(address) external view returns (address);
    function communityVault() external view returns (address);
    function traderRewardsVault() external view returns (address);
}
