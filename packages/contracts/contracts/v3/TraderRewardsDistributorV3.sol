// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {TraderRewardsVaultV3} from "./TraderRewardsVaultV3.sol";

/// @title TraderRewardsDistributorV3
/// @notice Trader rewards by Merkle distribution. Its owner publishes, once per (epoch, launch
/// token, asset), an immutable root (`publishRoot`); a distribution's id is
/// `keccak256(abi.encode(epoch, launchToken, asset))` (`distributionId`), a leaf is
/// `keccak256(abi.encode(id, claimant, amount))` (`leafHash`: one hash, not the double hash of
/// OpenZeppelin's StandardMerkleTree), and proofs are checked with sorted-pair hashing
/// (OpenZeppelin `MerkleProof`). A claimant claims once per distribution; the trader-rewards vault
/// pays from the token's balance of the asset (a claim past it reverts and may be retried later).
contract TraderRewardsDistributorV3 is ReentrancyGuard {
    event DistributionPublished(
        bytes32 indexed distributionId, uint256 indexed epoch, address indexed launchToken, address asset, bytes32 root
    );
    event RewardClaimed(
        bytes32 indexed distributionId,
        uint256 indexed epoch,
        address indexed launchToken,
        address asset,
        address claimant,
        uint256 amount
    );

    error AlreadyClaimed();
    error DistributionAlreadyPublished();
    error DistributionNotPublished();
    error InvalidAmount();
    error InvalidDependency();
    error InvalidMerkleProof();
    error InvalidRoot();
    error InvalidToken();
    error Unauthorized();

    /// @notice Who may publish roots (the deployment's governance).
    address public immutable owner;
    /// @notice The vault that pays the claims.
    address public immutable rewardsVault;
    /// @notice A distribution's root (zero: not published).
    mapping(bytes32 id => bytes32 root) public roots;
    /// @notice Whether `claimant` has claimed distribution `id`.
    mapping(bytes32 id => mapping(address claimant => bool value)) public claimed;

    constructor(address governance, address rewardsVault_) {
        if (rewardsVault_.code.length == 0) revert InvalidDependency();
        owner = governance;
        rewardsVault = rewardsVault_;
    }

    /// @notice Publishes the root of (epoch, launchToken, asset); owner only, once.
    function publishRoot(uint256 epoch, address launchToken, address asset, bytes32 root)
        external
        returns (bytes32 id)
    {
        if (msg.sender != owner) revert Unauthorized();
        if (launchToken == address(0)) revert InvalidToken();
        if (root == bytes32(0)) revert InvalidRoot();
        id = distributionId(epoch, launchToken, asset);
        if (roots[id] != bytes32(0)) revert DistributionAlreadyPublished();
        roots[id] = root;
        emit DistributionPublished(id, epoch, launchToken, asset, root);
    }

    /// @notice Claims the caller's `amount` of a published distribution with its Merkle `proof`.
    function claim(uint256 epoch, address launchToken, address asset, uint256 amount, bytes32[] calldata proof)
        external
        nonReentrant
    {
        if (amount == 0) revert InvalidAmount();
        bytes32 id = distributionId(epoch, launchToken, asset);
        bytes32 root = roots[id];
        if (root == bytes32(0)) revert DistributionNotPublished();
        if (claimed[id][msg.sender]) revert AlreadyClaimed();
        if (!MerkleProof.verifyCalldata(proof, root, leafHash(id, msg.sender, amount))) revert InvalidMerkleProof();
        claimed[id][msg.sender] = true;
        TraderRewardsVaultV3(rewardsVault).payout(launchToken, asset, msg.sender, amount);
        emit RewardClaimed(id, epoch, launchToken, asset, msg.sender, amount);
    }

    /// @notice keccak256(abi.encode(epoch, launchToken, asset)).
    function distributionId(uint256 epoch, address launchToken, address asset) public pure returns (bytes32) {
        return keccak256(abi.encode(epoch, launchToken, asset));
    }

    /// @notice keccak256(abi.encode(id, claimant, amount)).
    function leafHash(bytes32 id, address claimant, uint256 amount) public pure returns (bytes32) {
        return keccak256(abi.encode(id, claimant, amount));
    }

    /// @notice keccak256("endpoint-cp-v3").
    function protocolVersionHash() external pure returns (bytes32) {
        return keccak256("endpoint-cp-v3");
    }

    /// @notice keccak256("zonk-fee-design-b-v3").
    function feePolicyHash() external pure returns (bytes32) {
        return keccak256("zonk-fee-design-b-v3");
    }
}
