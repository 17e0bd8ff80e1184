// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title EcosystemVaultBaseV3
/// @notice What the community vault and the trader-rewards vault share: per (launch token, asset)
/// accounting (`accrued`, native ETH keyed by the zero address), funded only by the deployment's
/// fee manager (native ETH, `depositNative`) and its permanent LP fee vault (ERC-20 already
/// transferred, `recordERC20Funding`, checked against the vault's balance), and paid out by the
/// concrete vault (`_debit`). The LP fee vault is bound once by the deployer.
abstract contract EcosystemVaultBaseV3 {
    using SafeERC20 for IERC20;

    event PermanentLPFeeVaultSet(address indexed vault);

    error InvalidAmount();
    error InvalidDependency();
    error InsufficientBacking(address asset, uint256 available, uint256 required);
    error LPFeeVaultAlreadySet();
    error NativeTransferFailed();
    error UnauthorizedBootstrap();
    error UnauthorizedFundingSource();

    /// @notice The fee manager that forwards the curves' community / trader-rewards shares (ETH).
    address public immutable feeManager;
    /// @notice The permanent LP fee vault that forwards the LP fees' shares (ERC-20); bound once.
    address public permanentLPFeeVault;
    /// @notice What is held for `launchToken` in `asset` (native ETH: the zero address).
    mapping(address launchToken => mapping(address asset => uint256 amount)) public accrued;
    /// @notice Σ over launch tokens of `accrued(·, asset)`.
    mapping(address asset => uint256 amount) public totalAccrued;

    address internal _lpFeeVaultBootstrap;

    constructor(address feeManager_) {
        if (feeManager_.code.length == 0) revert InvalidDependency();
        feeManager = feeManager_;
        _lpFeeVaultBootstrap = msg.sender;
    }

    /// @notice Binds the permanent LP fee vault; once, by the deployer.
    function setPermanentLPFeeVaultOnce(address vault) external {
        if (permanentLPFeeVault != address(0)) revert LPFeeVaultAlreadySet();
        if (msg.sender != _lpFeeVaultBootstrap) revert UnauthorizedBootstrap();
        if (vault.code.length == 0) revert InvalidDependency();
        permanentLPFeeVault = vault;
        _lpFeeVaultBootstrap = address(0);
        emit PermanentLPFeeVaultSet(vault);
    }

    /// @notice Funds `launchToken` with `msg.value` native ETH; by the fee manager.
    function depositNative(address launchToken) external payable {
        if (msg.sender != feeManager) revert UnauthorizedFundingSource();
        if (msg.value == 0) revert InvalidAmount();
        _credit(launchToken, address(0), msg.value);
    }

    /// @notice Records `amount` of ERC-20 `asset` already transferred here for `launchToken`; by the
    /// permanent LP fee vault.
    function recordERC20Funding(address launchToken, address asset, uint256 amount) external {
        if (msg.sender != permanentLPFeeVault || msg.sender == address(0)) revert UnauthorizedFundingSource();
        if (asset == address(0) || amount == 0) revert InvalidAmount();
        uint256 required = totalAccrued[asset] + amount;
        uint256 available = IERC20(asset).balanceOf(address(this));
        if (available < required) revert InsufficientBacking(asset, available, required);
        _credit(launchToken, asset, amount);
    }

    /// @notice keccak256("endpoint-cp-v3").
    function protocolVersionHash() external pure returns (bytes32) {
        return keccak256("endpoint-cp-v3");
    }

    /// @notice keccak256("zonk-fee-design-b-v3").
    function feePolicyHash() external pure returns (bytes32) {
        return keccak256("zonk-fee-design-b-v3");
    }

    function _credit(address launchToken, address asset, uint256 amount) private {
        accrued[launchToken][asset] += amount;
        totalAccrued[asset] += amount;
        _funded(launchToken, asset, msg.sender, amount);
    }

    /// @dev Emits the concrete vault's funding event.
    function _funded(address launchToken, address asset, address source, uint256 amount) internal virtual;

    /// @dev Takes `amount` off `launchToken`'s `asset` balance (reverts past it via `shortfall`)
    /// and sends it to `to`.
    function _debit(address launchToken, address asset, address to, uint256 amount, bytes4 shortfall) internal {
        uint256 held = accrued[launchToken][asset];
        if (held < amount) {
            assembly {
                mstore(0, shortfall)
                revert(0, 4)
            }
        }
        accrued[launchToken][asset] = held - amount;
        totalAccrued[asset] -= amount;
        if (asset == address(0)) {
            (bool ok,) = payable(to).call{value: amount}("");
            if (!ok) revert NativeTransferFailed();
        } else {
            IERC20(asset).safeTransfer(to, amount);
        }
    }
}
