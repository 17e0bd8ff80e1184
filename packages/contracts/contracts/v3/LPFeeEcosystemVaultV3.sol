// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title LPFeeEcosystemVaultV3
/// @notice A vault the permanent LP fee vault forwards a token's community or trader-rewards share
/// of its LP fees into (the platform has one community vault and one trader-rewards vault). It
/// holds what it is funded with, the launch token included: a platform contract, never a holder.
contract LPFeeEcosystemVaultV3 {
    error Unauthorized();

    /// @notice The permanent LP fee vault that created this vault and alone funds it.
    address public immutable feeVault;
    mapping(address launchToken => mapping(address asset => uint256 amount)) public fundedOf;

    constructor() {
        feeVault = msg.sender;
    }

    /// @notice Records `amount` of `asset` forwarded for `launchToken` (already transferred here).
    function recordERC20Funding(address launchToken, address asset, uint256 amount) external {
        if (msg.sender != feeVault) revert Unauthorized();
        fundedOf[launchToken][asset] += amount;
    }
}
