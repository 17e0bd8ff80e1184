// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ZonkV3Constants
/// @notice The fixed economics of the `endpoint-cp-v3` launch family: supply split, virtual
/// reserves of the shifted constant-product curve, graduation reserve, fee policy and pool tier.
library ZonkV3Constants {
    string internal constant PROTOCOL_VERSION = "endpoint-cp-v3";
    bytes32 internal constant PROTOCOL_VERSION_HASH = keccak256("endpoint-cp-v3");

    uint256 internal constant TOTAL_SUPPLY = 1_000_000_000 ether;
    uint256 internal constant CURVE_ALLOCATION = 800_000_000 ether;
    uint256 internal constant LP_ALLOCATION = 200_000_000 ether;

    /// @dev Chosen so that selling the whole curve allocation for 3 ETH net ends at 15 gwei per token.
    uint256 internal constant VIRTUAL_TOKEN_RESERVE = 1_066_666_666_666_666_666_666_666_667;
    uint256 internal constant VIRTUAL_ETH_RESERVE = 1 ether;
    uint256 internal constant GRADUATION_RESERVE = 3 ether;
    uint256 internal constant K = VIRTUAL_TOKEN_RESERVE * VIRTUAL_ETH_RESERVE;

    uint256 internal constant FEE_DENOMINATOR = 10_000;
    uint256 internal constant TOTAL_FEE_BPS = 100;
    uint256 internal constant CREATOR_FEE_PERCENT = 35;
    uint256 internal constant COMMUNITY_FEE_PERCENT = 20;
    uint256 internal constant TRADER_REWARDS_FEE_PERCENT = 15;
    bytes32 internal constant FEE_POLICY_HASH = keccak256("zonk-fee-design-b-v3");

    uint24 internal constant POOL_FEE = 10_000;
    int24 internal constant POOL_TICK_SPACING = 200;
    int24 internal constant FULL_RANGE_TICK_LOWER = -887_200;
    int24 internal constant FULL_RANGE_TICK_UPPER = 887_200;
    /// @dev floor(sqrt(15e9 / 1e18 * 2^192)): terminal price when the launch token is token0.
    uint160 internal constant SQRT_PRICE_X96_TOKEN_IS_TOKEN0 = 9_703_428_570_912_459_262_669_888;
    /// @dev floor(sqrt(1e18 / 15e9 * 2^192)): terminal price when WETH is token0.
    uint160 internal constant SQRT_PRICE_X96_WETH_IS_TOKEN0 = 646_895_238_060_830_617_511_325_894_307_352;

    uint256 internal constant MAX_NAME_BYTES = 64;
    uint256 internal constant MAX_SYMBOL_BYTES = 16;
    uint16 internal constant MAX_SALT_CANDIDATES = 256;
}
