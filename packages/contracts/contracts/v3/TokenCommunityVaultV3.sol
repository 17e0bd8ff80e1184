// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {EcosystemVaultBaseV3} from "./EcosystemVaultBaseV3.sol";

/// @title TokenCommunityVaultV3
/// @notice The deployment's community vault: holds each launch token's community share of the
/// curve fees (native ETH from the fee manager) and of the permanent LP fees (the token and WETH
/// from the LP fee vault), per (launch token, asset) (`accrued`), until anyone forwards a
/// token's balance of an asset to the community treasury. It holds what it is funded with, the
/// launch token included: a platform contract, never a holder.
contract TokenCommunityVaultV3 is EcosystemVaultBaseV3, ReentrancyGuard {
    event CommunityFunded(address indexed launchToken, address indexed asset, address indexed source, uint256 amount);
    event CommunityFundsForwarded(
        address indexed launchToken, address indexed asset, address indexed treasury, uint256 amount, address caller
    );

    error NothingToForward();

    /// @notice Where `forwardToTreasury` sends the community funds.
    address public immutable treasury;

    constructor(address feeManager_, address treasury_) EcosystemVaultBaseV3(feeManager_) {
        treasury = treasury_;
    }

    /// @notice The deployer until it binds the LP fee vault, then the zero address.
    function lpFeeVaultBootstrapAuthority() external view returns (address) {
        return _lpFeeVaultBootstrap;
    }

    /// @notice Sends `launchToken`'s whole balance of `asset` (zero address: ETH) to the treasury. Anyone.
    function forwardToTreasury(address launchToken, address asset) external nonReentrant returns (uint256 amount) {
        amount = accrued[launchToken][asset];
        if (amount == 0) revert NothingToForward();
        _debit(launchToken, asset, treasury, amount, NothingToForward.selector);
        emit CommunityFundsForwarded(launchToken, asset, treasury, amount, msg.sender);
    }

    function _funded(address launchToken, address asset, address source, uint256 amount) internal override {
        emit CommunityFunded(launchToken, asset, source, amount);
    }
}
