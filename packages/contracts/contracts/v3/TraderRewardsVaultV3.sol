// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {EcosystemVaultBaseV3} from "./EcosystemVaultBaseV3.sol";

/// @title TraderRewardsVaultV3
/// @notice The deployment's trader-rewards vault: holds each launch token's trader-rewards share of
/// the curve fees (native ETH) and of the permanent LP fees (the token and WETH), per (launch
/// token, asset) (`accrued`), and pays claimants only on the distributor's word (`payout`, called
/// by `TraderRewardsDistributorV3.claim` after the Merkle proof checked). A platform contract,
/// never a holder.
contract TraderRewardsVaultV3 is EcosystemVaultBaseV3, ReentrancyGuard {
    event DistributorSet(address indexed distributor);
    event TraderRewardsFunded(address indexed launchToken, address indexed asset, address indexed source, uint256 amount);
    event TraderRewardPaid(address indexed launchToken, address indexed asset, address indexed claimant, uint256 amount);

    error DistributorAlreadySet();
    error InsufficientRewardsBalance();
    error UnauthorizedDistributor();

    /// @notice The distributor allowed to call `payout`; bound once by the deployer.
    address public distributor;

    constructor(address feeManager_) EcosystemVaultBaseV3(feeManager_) {}

    /// @notice The deployer until it binds the LP fee vault, then the zero address.
    function bootstrapAuthority() external view returns (address) {
        return _lpFeeVaultBootstrap;
    }

    /// @notice Binds the distributor; once, by the deployer (before it binds the LP fee vault).
    function setDistributorOnce(address distributor_) external {
        if (distributor != address(0)) revert DistributorAlreadySet();
        if (msg.sender != _lpFeeVaultBootstrap) revert UnauthorizedBootstrap();
        if (distributor_.code.length == 0) revert InvalidDependency();
        distributor = distributor_;
        emit DistributorSet(distributor_);
    }

    /// @notice Pays `amount` of `asset` (zero address: ETH) from `launchToken`'s balance to
    /// `claimant`; by the distributor. Reverts `InsufficientRewardsBalance` past the balance.
    function payout(address launchToken, address asset, address claimant, uint256 amount) external nonReentrant {
        if (msg.sender != distributor || msg.sender == address(0)) revert UnauthorizedDistributor();
        if (amount == 0) revert InvalidAmount();
        _debit(launchToken, asset, claimant, amount, InsufficientRewardsBalance.selector);
        emit TraderRewardPaid(launchToken, asset, claimant, amount);
    }

    function _funded(address launchToken, address asset, address source, uint256 amount) internal override {
        emit TraderRewardsFunded(launchToken, asset, source, amount);
    }
}
