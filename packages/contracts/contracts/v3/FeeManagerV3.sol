// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {FactoryBoundV3} from "./FactoryBoundV3.sol";
import {IZonkFeeManagerV3} from "./IZonkV3.sol";

/// @title FeeManagerV3
/// @notice Pull-based custody of the curves' ETH fees. The factory registers every token (its
/// creator becomes the payout address); only a token's curve can deposit its fees, split as the
/// curve computed them. Protocol and creator shares can be claimed; the community and trader-rewards
/// shares are accrued per token (their vaults are not part of this implementation).
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

    error UnauthorizedCurve();
    error TokenAlreadyRegistered();
    error InvalidFeeValue();
    error InvalidFeeSplit();
    error NothingToClaim();
    error NativeTransferFailed();
    error UnexpectedEther();

    address public immutable treasury;
    mapping(address token => address curve) public curveOf;
    mapping(address token => address creator) public creatorOf;
    mapping(address token => address payout) public creatorPayoutOf;
    mapping(address token => uint256 amount) public creatorFeesAccrued;
    mapping(address token => uint256 amount) public communityFeesAccruedByToken;
    mapping(address token => uint256 amount) public traderRewardsFeesAccruedByToken;
    uint256 public protocolFeesAccrued;

    constructor(address treasury_) {
        treasury = treasury_;
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
        communityFeesAccruedByToken[token] += communityFee;
        traderRewardsFeesAccruedByToken[token] += traderRewardsFee;
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
        address payout = creatorPayoutOf[token];
        _send(payout, amount);
        emit CreatorFeesClaimed(token, payout, msg.sender, amount);
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
