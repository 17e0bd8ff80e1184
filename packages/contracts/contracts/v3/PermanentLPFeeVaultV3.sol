// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IEcosystemVaultFundingV3, IFeeManagerViewsV3} from "./IZonkV3.sol";

/// @title PermanentLPFeeVaultV3
/// @notice The deployment's one permanent LP fee vault: the graduation positions' custodians
/// collect their trading fees (the launch token and WETH) into it and notify each collection
/// (`notifyPermanentLPFees`); each asset's amount is split between the protocol (the rest), the
/// creator (25 %), the token's community (30 %) and trader rewards (15 %), as on the platform. The protocol and creator
/// shares accrue per recipient and asset — the fee manager's treasury and the token's payout
/// address at collection time — and each recipient claims its own (`claimLPFees(asset)`); the
/// community and trader-rewards shares accrue per (launch token, asset) until anyone forwards them
/// to the fee manager's community vault and trader-rewards vault. It holds what it accrues: a
/// platform contract, never a token holder.
contract PermanentLPFeeVaultV3 is ReentrancyGuard {
    using SafeERC20 for IERC20;

    event PermanentLPFeesAccrued(
        address indexed launchToken,
        address indexed custodian,
        address indexed asset,
        address protocolRecipient,
        address creatorRecipient,
        uint256 creatorShare,
        uint256 protocolShare,
        uint256 communityShare,
        uint256 traderRewardsShare
    );
    event ProtocolLPFeesClaimed(address indexed recipient, address indexed asset, uint256 amount);
    event CreatorLPFeesClaimed(address indexed recipient, address indexed asset, uint256 amount);
    event CommunityLPFeesForwarded(
        address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller
    );
    event TraderRewardsLPFeesForwarded(
        address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller
    );

    error InsufficientLPFeeBacking(address asset, uint256 available, uint256 required);
    error InvalidEcosystemVault();
    error InvalidLPFeeAsset();
    error NothingToClaimLPFees();
    error Unauthorized();
    error UnauthorizedPermanentCustodian();

    uint256 internal constant LP_CREATOR_FEE_PERCENT = 25;
    uint256 internal constant LP_COMMUNITY_FEE_PERCENT = 30;
    uint256 internal constant LP_TRADER_REWARDS_FEE_PERCENT = 15;

    /// @notice The graduation manager that created this vault and registers the custodians.
    address public immutable graduationManager;
    /// @notice The fee manager whose treasury and creator payout addresses receive the shares.
    address public immutable feeManager;
    /// @notice Where the community shares are forwarded (`fundCommunityVault`).
    address public immutable communityVault;
    /// @notice Where the trader-rewards shares are forwarded (`fundTraderRewardsVault`).
    address public immutable traderRewardsVault;
    /// @notice The launch token whose position each registered custodian holds.
    mapping(address custodian => address launchToken) public launchTokenOfCustodian;
    mapping(address recipient => mapping(address asset => uint256 amount)) public protocolLPFeesAccrued;
    mapping(address recipient => mapping(address asset => uint256 amount)) public creatorLPFeesAccrued;
    mapping(address launchToken => mapping(address asset => uint256 amount)) public communityLPFeesAccrued;
    mapping(address launchToken => mapping(address asset => uint256 amount)) public traderRewardsLPFeesAccrued;
    /// @notice Σ of every unclaimed / unforwarded share of `asset` (backed by this vault's balance).
    mapping(address asset => uint256 amount) public totalLPFeesAccrued;

    /// @dev Created by the graduation manager; the fee manager's ecosystem vaults must be bound.
    constructor(address feeManager_) {
        address community = IFeeManagerViewsV3(feeManager_).communityVault();
        address rewards = IFeeManagerViewsV3(feeManager_).traderRewardsVault();
        if (community == address(0) || rewards == address(0)) revert InvalidEcosystemVault();
        graduationManager = msg.sender;
        feeManager = feeManager_;
        communityVault = community;
        traderRewardsVault = rewards;
    }

    /// @notice Registers a graduation's custodian; by the graduation manager, in the graduation.
    function registerCustodian(address custodian, address launchToken) external {
        if (msg.sender != graduationManager) revert Unauthorized();
        launchTokenOfCustodian[custodian] = launchToken;
    }

    /// @notice Records what `launchToken`'s custodian (the caller) has just collected here
    /// (`amount0` of token0, `amount1` of token1 of the token/WETH pair) and splits it.
    function notifyPermanentLPFees(address launchToken, uint256 amount0, uint256 amount1) external {
        if (launchToken == address(0) || launchTokenOfCustodian[msg.sender] != launchToken) {
            revert UnauthorizedPermanentCustodian();
        }
        if (amount0 == 0 && amount1 == 0) return;
        address weth = ICustodianWethV3(msg.sender).weth();
        (address token0, address token1) = launchToken < weth ? (launchToken, weth) : (weth, launchToken);
        address protocolRecipient = IFeeManagerViewsV3(feeManager).treasury();
        address creatorRecipient = IFeeManagerViewsV3(feeManager).creatorPayoutOf(launchToken);
        _requireBacking(token0, amount0);
        _requireBacking(token1, amount1);
        _accrue(launchToken, token0, amount0, protocolRecipient, creatorRecipient);
        _accrue(launchToken, token1, amount1, protocolRecipient, creatorRecipient);
    }

    /// @notice Sends the caller's protocol and creator shares of `asset` to the caller.
    function claimLPFees(address asset) external nonReentrant returns (uint256 protocolAmount, uint256 creatorAmount) {
        if (asset == address(0)) revert InvalidLPFeeAsset();
        protocolAmount = protocolLPFeesAccrued[msg.sender][asset];
        creatorAmount = creatorLPFeesAccrued[msg.sender][asset];
        if (protocolAmount + creatorAmount == 0) revert NothingToClaimLPFees();
        if (protocolAmount != 0) {
            protocolLPFeesAccrued[msg.sender][asset] = 0;
            emit ProtocolLPFeesClaimed(msg.sender, asset, protocolAmount);
        }
        if (creatorAmount != 0) {
            creatorLPFeesAccrued[msg.sender][asset] = 0;
            emit CreatorLPFeesClaimed(msg.sender, asset, creatorAmount);
        }
        totalLPFeesAccrued[asset] -= protocolAmount + creatorAmount;
        IERC20(asset).safeTransfer(msg.sender, protocolAmount + creatorAmount);
    }

    /// @notice Forwards `launchToken`'s accrued community share of `asset` to the community vault. Anyone.
    function fundCommunityVault(address launchToken, address asset) external nonReentrant returns (uint256 amount) {
        amount = _forward(communityLPFeesAccrued, communityVault, launchToken, asset);
        emit CommunityLPFeesForwarded(launchToken, asset, communityVault, amount, msg.sender);
    }

    /// @notice Forwards `launchToken`'s accrued trader-rewards share of `asset` to the trader-rewards vault. Anyone.
    function fundTraderRewardsVault(address launchToken, address asset)
        external
        nonReentrant
        returns (uint256 amount)
    {
        amount = _forward(traderRewardsLPFeesAccrued, traderRewardsVault, launchToken, asset);
        emit TraderRewardsLPFeesForwarded(launchToken, asset, traderRewardsVault, amount, msg.sender);
    }

    /// @notice keccak256("zonk-fee-design-b-v3").
    function feePolicyHash() external pure returns (bytes32) {
        return keccak256("zonk-fee-design-b-v3");
    }

    function _forward(
        mapping(address => mapping(address => uint256)) storage accrued,
        address vault,
        address launchToken,
        address asset
    ) private returns (uint256 amount) {
        if (asset == address(0)) revert InvalidLPFeeAsset();
        amount = accrued[launchToken][asset];
        if (amount == 0) revert NothingToClaimLPFees();
        accrued[launchToken][asset] = 0;
        totalLPFeesAccrued[asset] -= amount;
        IERC20(asset).safeTransfer(vault, amount);
        IEcosystemVaultFundingV3(vault).recordERC20Funding(launchToken, asset, amount);
    }

    function _requireBacking(address asset, uint256 amount) private view {
        uint256 required = totalLPFeesAccrued[asset] + amount;
        uint256 available = IERC20(asset).balanceOf(address(this));
        if (available < required) revert InsufficientLPFeeBacking(asset, available, required);
    }

    function _accrue(
        address launchToken,
        address asset,
        uint256 amount,
        address protocolRecipient,
        address creatorRecipient
    ) private {
        if (amount == 0) return;
        uint256 creatorShare = amount * LP_CREATOR_FEE_PERCENT / 100;
        uint256 communityShare = amount * LP_COMMUNITY_FEE_PERCENT / 100;
        uint256 traderRewardsShare = amount * LP_TRADER_REWARDS_FEE_PERCENT / 100;
        uint256 protocolShare = amount - creatorShare - communityShare - traderRewardsShare;
        protocolLPFeesAccrued[protocolRecipient][asset] += protocolShare;
        creatorLPFeesAccrued[creatorRecipient][asset] += creatorShare;
        communityLPFeesAccrued[launchToken][asset] += communityShare;
        traderRewardsLPFeesAccrued[launchToken][asset] += traderRewardsShare;
        totalLPFeesAccrued[asset] += amount;
        emit PermanentLPFeesAccrued(
            launchToken,
            msg.sender,
            asset,
            protocolRecipient,
            creatorRecipient,
            creatorShare,
            protocolShare,
            communityShare,
            traderRewardsShare
        );
    }
}

/// @notice The custodian's WETH getter.
interface ICustodianWethV3 {
    function weth() external view returns (address);
}
