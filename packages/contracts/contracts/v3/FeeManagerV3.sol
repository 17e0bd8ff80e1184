// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {FactoryBoundV3} from "./FactoryBoundV3.sol";
import {IEcosystemVaultFundingV3, IFeeManagerBoundV3, IZonkFeeManagerV3} from "./IZonkV3.sol";

/// @title FeeManagerV3
/// @notice Pull-based custody of the curves' ETH fees. The factory registers every token (its
/// creator becomes the payout address); only a token's curve can deposit its fees, split as the
/// curve computed them. The protocol share is claimed to the treasury, a token's creator share to
/// its payout address (which the creator can hand over: the creator proposes, the proposed
/// address accepts); the community and trader-rewards shares accrue per token until anyone forwards them
/// (native ETH) to the deployment's community vault and trader-rewards vault, bound once by the
/// deployer (`bindEcosystemVaultsOnce`).
contract FeeManagerV3 is IZonkFeeManagerV3, ReentrancyGuard, FactoryBoundV3 {
    event TokenRegistered(address indexed token, address indexed curve, address indexed creator, address payout);
    event FeesDeposited(
        address indexed token,
        address indexed curve,
        bool indexed isBuy,
        uint256 totalFee,
        uint256 creatorFee,
        uint256 protocolFee,
        uint256 communityFee,
        uint256 traderRewardsFee
    );
    event ProtocolFeesClaimed(address indexed treasury, address indexed triggeredBy, uint256 amount);
    event CreatorFeesClaimed(address indexed token, address indexed payout, address indexed triggeredBy, uint256 amount);
    event EcosystemVaultsSet(address indexed communityVault, address indexed traderRewardsVault);
    event CommunityVaultFunded(address indexed token, address indexed vault, uint256 amount, address caller);
    event TraderRewardsVaultFunded(address indexed token, address indexed vault, uint256 amount, address caller);
    event CreatorPayoutProposed(address indexed token, address indexed currentPayout, address indexed proposedPayout);
    event CreatorPayoutAccepted(address indexed token, address indexed previousPayout, address indexed newPayout);
    event CreatorPayoutCancelled(address indexed token, address indexed cancelledPayout);

    error UnauthorizedCurve();
    error TokenAlreadyRegistered();
    error InvalidFeeValue();
    error InvalidFeeSplit();
    error NothingToClaim();
    error NativeTransferFailed();
    error UnexpectedEther();
    error NothingToFund();
    error EcosystemVaultsAlreadySet();
    error EcosystemVaultsNotSet();
    error InvalidEcosystemVault();
    error InvalidPayoutRecipient();
    error CreatorPayoutUnchanged();
    error UnauthorizedCreator();
    error UnauthorizedPendingPayout();
    error NoPendingProposal();

    address public immutable treasury;
    mapping(address token => address curve) public curveOf;
    mapping(address token => address creator) public creatorOf;
    mapping(address token => address payout) public creatorPayoutOf;
    /// @notice The payout address proposed for a token, until it accepts or the proposal is cancelled.
    mapping(address token => address payout) public pendingCreatorPayoutOf;
    mapping(address token => uint256 amount) public creatorFeesAccrued;
    mapping(address token => uint256 amount) public communityFeesAccruedByToken;
    mapping(address token => uint256 amount) public traderRewardsFeesAccruedByToken;
    uint256 public protocolFeesAccrued;
    /// @notice Σ of every token's unclaimed creator share.
    uint256 public totalCreatorFeesAccrued;
    /// @notice Σ of every token's unforwarded community share.
    uint256 public communityFeesAccrued;
    /// @notice Σ of every token's unforwarded trader-rewards share.
    uint256 public traderRewardsFeesAccrued;
    /// @notice The community vault (`TokenCommunityVaultV3`) the community shares are forwarded to.
    address public communityVault;
    /// @notice The trader-rewards vault (`TraderRewardsVaultV3`) the trader-rewards shares are forwarded to.
    address public traderRewardsVault;
    /// @notice The deployer until it binds the ecosystem vaults, then the zero address.
    address public ecosystemBootstrapAuthority;

    constructor(address treasury_) {
        treasury = treasury_;
        ecosystemBootstrapAuthority = msg.sender;
    }

    /// @notice Binds the community and trader-rewards vaults; once, by the deployer. Both vaults
    /// must name this fee manager as theirs.
    function bindEcosystemVaultsOnce(address communityVault_, address traderRewardsVault_) external {
        if (communityVault != address(0)) revert EcosystemVaultsAlreadySet();
        if (msg.sender != ecosystemBootstrapAuthority) revert UnauthorizedBootstrap();
        if (
            communityVault_.code.length == 0 || traderRewardsVault_.code.length == 0
                || IFeeManagerBoundV3(communityVault_).feeManager() != address(this)
                || IFeeManagerBoundV3(traderRewardsVault_).feeManager() != address(this)
        ) revert InvalidEcosystemVault();
        communityVault = communityVault_;
        traderRewardsVault = traderRewardsVault_;
        ecosystemBootstrapAuthority = address(0);
        emit EcosystemVaultsSet(communityVault_, traderRewardsVault_);
    }

    /// @notice Registers a launched token and its curve; its creator becomes the payout address.
    /// Factory only, once per token.
    function registerToken(address token, address curve, address creator) external onlyFactory {
        if (curveOf[token] != address(0)) revert TokenAlreadyRegistered();
        curveOf[token] = curve;
        creatorOf[token] = creator;
        creatorPayoutOf[token] = creator;
        emit TokenRegistered(token, curve, creator, creator);
    }

    /// @notice Takes a trade's fee (`msg.value` = `totalFee`) as the token's curve split it.
    /// Curve of `token` only.
    function depositFees(
        address token,
        uint256 totalFee,
        uint256 creatorFee,
        uint256 protocolFee,
        uint256 communityFee,
        uint256 traderRewardsFee,
        bool isBuy
    ) external payable {
        if (curveOf[token] != msg.sender) revert UnauthorizedCurve();
        if (msg.value != totalFee) revert InvalidFeeValue();
        if (creatorFee + protocolFee + communityFee + traderRewardsFee != totalFee) revert InvalidFeeSplit();
        protocolFeesAccrued += protocolFee;
        creatorFeesAccrued[token] += creatorFee;
        totalCreatorFeesAccrued += creatorFee;
        communityFeesAccruedByToken[token] += communityFee;
        communityFeesAccrued += communityFee;
        traderRewardsFeesAccruedByToken[token] += traderRewardsFee;
        traderRewardsFeesAccrued += traderRewardsFee;
        emit FeesDeposited(token, msg.sender, isBuy, totalFee, creatorFee, protocolFee, communityFee, traderRewardsFee);
    }

    /// @notice Sends the accrued protocol share to the treasury.
    function claimProtocolFees() external nonReentrant returns (uint256 amount) {
        amount = protocolFeesAccrued;
        if (amount == 0) revert NothingToClaim();
        protocolFeesAccrued = 0;
        _send(treasury, amount);
        emit ProtocolFeesClaimed(treasury, msg.sender, amount);
    }

    /// @notice Sends a token's accrued creator share to its payout address.
    function claimCreatorFees(address token) external nonReentrant returns (uint256 amount) {
        amount = creatorFeesAccrued[token];
        if (amount == 0) revert NothingToClaim();
        creatorFeesAccrued[token] = 0;
        totalCreatorFeesAccrued -= amount;
        address payout = creatorPayoutOf[token];
        _send(payout, amount);
        emit CreatorFeesClaimed(token, payout, msg.sender, amount);
    }

    /// @notice Proposes a new payout address for `token`; by the token's creator (the launching
    /// address, whatever the current payout). Replaces any earlier proposal. The proposed address
    /// becomes the payout once it accepts.
    function proposeCreatorPayout(address token, address proposedPayout) external {
        if (msg.sender != creatorOf[token] || msg.sender == address(0)) revert UnauthorizedCreator();
        if (proposedPayout == address(0)) revert InvalidPayoutRecipient();
        address current = creatorPayoutOf[token];
        if (proposedPayout == current) revert CreatorPayoutUnchanged();
        pendingCreatorPayoutOf[token] = proposedPayout;
        emit CreatorPayoutProposed(token, current, proposedPayout);
    }

    /// @notice Accepts the proposed payout address of `token`; by that address. Creator fees not
    /// yet claimed are then claimed to it.
    function acceptCreatorPayout(address token) external {
        address pending = pendingCreatorPayoutOf[token];
        if (msg.sender != pending || pending == address(0)) revert UnauthorizedPendingPayout();
        address previous = creatorPayoutOf[token];
        creatorPayoutOf[token] = pending;
        pendingCreatorPayoutOf[token] = address(0);
        emit CreatorPayoutAccepted(token, previous, pending);
    }

    /// @notice Withdraws the pending payout proposal of `token`; by the token's creator.
    function cancelCreatorPayout(address token) external {
        if (msg.sender != creatorOf[token] || msg.sender == address(0)) revert UnauthorizedCreator();
        address pending = pendingCreatorPayoutOf[token];
        if (pending == address(0)) revert NoPendingProposal();
        pendingCreatorPayoutOf[token] = address(0);
        emit CreatorPayoutCancelled(token, pending);
    }

    /// @notice Forwards `token`'s accrued community share (native ETH) to the community vault,
    /// which records it for `token` (`CommunityFunded`). Anyone.
    function fundCommunityVault(address token) external nonReentrant returns (uint256 amount) {
        address vault = communityVault;
        if (vault == address(0)) revert EcosystemVaultsNotSet();
        amount = communityFeesAccruedByToken[token];
        if (amount == 0) revert NothingToFund();
        communityFeesAccruedByToken[token] = 0;
        communityFeesAccrued -= amount;
        IEcosystemVaultFundingV3(vault).depositNative{value: amount}(token);
        emit CommunityVaultFunded(token, vault, amount, msg.sender);
    }

    /// @notice Forwards `token`'s accrued trader-rewards share (native ETH) to the trader-rewards
    /// vault, which records it for `token` (`TraderRewardsFunded`). Anyone.
    function fundTraderRewardsVault(address token) external nonReentrant returns (uint256 amount) {
        address vault = traderRewardsVault;
        if (vault == address(0)) revert EcosystemVaultsNotSet();
        amount = traderRewardsFeesAccruedByToken[token];
        if (amount == 0) revert NothingToFund();
        traderRewardsFeesAccruedByToken[token] = 0;
        traderRewardsFeesAccrued -= amount;
        IEcosystemVaultFundingV3(vault).depositNative{value: amount}(token);
        emit TraderRewardsVaultFunded(token, vault, amount, msg.sender);
    }

    /// @notice Everything this contract owes: protocol + creator + community + trader-rewards accruals.
    function totalLiabilities() external view returns (uint256) {
        return protocolFeesAccrued + totalCreatorFeesAccrued + communityFeesAccrued + traderRewardsFeesAccrued;
    }

    /// @notice keccak256("endpoint-cp-v3").
    function protocolVersionHash() external pure returns (bytes32) {
        return keccak256("endpoint-cp-v3");
    }

    /// @notice keccak256("zonk-fee-design-b-v3").
    function feePolicyHash() external pure returns (bytes32) {
        return keccak256("zonk-fee-design-b-v3");
    }

    receive() external payable {
        revert UnexpectedEther();
    }

    function _send(address to, uint256 amount) private {
        (bool ok,) = payable(to).call{value: amount}("");
        if (!ok) revert NativeTransferFailed();
    }
}
