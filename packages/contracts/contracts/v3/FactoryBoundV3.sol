// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title FactoryBoundV3
/// @notice A manager's one-time binding to the factory: the deployer names the factory once
/// (`setFactoryOnce`, which ends the deployer's authority), after which only the factory passes
/// `onlyFactory`. Shared by the fee manager and the graduation manager.
abstract contract FactoryBoundV3 {
    event FactorySet(address indexed factory);

    error FactoryAlreadySet();
    error UnauthorizedBootstrap();
    error UnauthorizedFactory();

    address public factory;
    address public factoryBootstrapAuthority;

    constructor() {
        factoryBootstrapAuthority = msg.sender;
    }

    /// @dev Reverts `UnauthorizedFactory` unless the factory calls.
    modifier onlyFactory() {
        if (msg.sender != factory) revert UnauthorizedFactory();
        _;
    }

    /// @notice Binds the factory; once, by the deployer.
    function setFactoryOnce(address factory_) external {
        if (factory != address(0)) revert FactoryAlreadySet();
        if (msg.sender != factoryBootstrapAuthority) revert UnauthorizedBootstrap();
        factory = factory_;
        factoryBootstrapAuthority = address(0);
        emit FactorySet(factory_);
    }
}
