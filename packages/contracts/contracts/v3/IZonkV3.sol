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

/// @notice What the curve needs from the fee manager.
interface IZonkFeeManagerV3 {
    function registerToken(address token, address curve, address creator) external;
    function depositFees(
        address token,
        uint256 totalFee,
        uint256 creatorFee,
        uint256 protocolFee,
        uint256 communityFee,
        uint256 traderRewardsFee,
        bool isBuy
    ) external payable;
}

/// @notice What the factory and the curve need from the graduation manager.
interface IZonkGraduationManagerV3 {
    function registerLaunch(
        address token,
        address curve,
        address creator,
        bytes32 launchSeed,
        bytes32 candidateSalt,
        uint16 attemptIndex
    ) external returns (address pool);
    function graduate(address token, address creator, uint256 tokenAmount, uint256 ethAmount) external payable;
    function weth() external view returns (address);
    function uniswapV3Factory() external view returns (address);
}

interface IZonkTokenV3 {
    function initialize(address inventoryOwner) external;
}
