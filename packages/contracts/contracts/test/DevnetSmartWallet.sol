// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title DevnetSmartWallet (test contract, not for production)
/// @notice The smallest smart-contract wallet that signs like Coinbase Smart Wallet or Safe do
/// from a verifier's point of view: ERC-1271 `isValidSignature(hash, signature)` answers the magic
/// value when `signature` is its owner's ECDSA signature of `hash` (the hash the verifier passes,
/// e.g. the EIP-191 hash of a `personal_sign` message). `execute` lets the owner act as the wallet
/// (e.g. launch a token whose creator is the wallet).
contract DevnetSmartWallet is IERC1271 {
    /// @notice The externally owned account whose signatures the wallet accepts.
    address public immutable owner;

    error NotOwner();
    error CallFailed(bytes reason);

    constructor(address owner_) {
        owner = owner_;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError status,) = ECDSA.tryRecover(hash, signature);
        if (status == ECDSA.RecoverError.NoError && signer == owner) return IERC1271.isValidSignature.selector;
        return 0xffffffff;
    }

    /// @notice Calls `target` with `data` and `value` as the wallet (owner only).
    function execute(address target, uint256 value, bytes calldata data) external payable returns (bytes memory) {
        if (msg.sender != owner) revert NotOwner();
        (bool ok, bytes memory result) = target.call{value: value}(data);
        if (!ok) revert CallFailed(result);
        return result;
    }

    receive() external payable {}
}

/// @title DevnetSmartWalletFactory (test contract, not for production)
/// @notice Deploys {DevnetSmartWallet}s with CREATE2, so that a wallet's address is known before it
/// exists (counterfactual): what an ERC-6492 signature names as its factory.
contract DevnetSmartWalletFactory {
    event WalletDeployed(address indexed wallet, address indexed owner, bytes32 salt);

    /// @notice Deploys the wallet of (`owner`, `salt`), or returns it when it exists.
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = walletAddress(owner, salt);
        if (wallet.code.length > 0) return wallet;
        wallet = address(new DevnetSmartWallet{salt: salt}(owner));
        emit WalletDeployed(wallet, owner, salt);
    }

    /// @notice The CREATE2 address of the wallet of (`owner`, `salt`), deployed or not.
    function walletAddress(address owner, bytes32 salt) public view returns (address) {
        bytes32 codeHash = keccak256(abi.encodePacked(type(DevnetSmartWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }
}
