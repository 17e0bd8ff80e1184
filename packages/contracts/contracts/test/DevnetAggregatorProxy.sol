// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AggregatorV3Interface} from "@chainlink/contracts/src/v0.8/shared/interfaces/AggregatorV3Interface.sol";

/// @title DevnetAggregatorProxy (test contract, not for production)
/// @notice A Chainlink-style `AggregatorProxy` with phases, as the feeds on Base are deployed: reads
/// go to the current phase's aggregator; the owner replaces it in two steps (`proposeAggregator`,
/// then `confirmAggregator`, which starts a new phase and emits `AggregatorConfirmed`). Round ids
/// carry the phase in their top bits (`phaseId << 64 | aggregator round id`), and every phase's
/// aggregator stays readable through `phaseAggregators`. The proxy itself emits no `AnswerUpdated`:
/// the aggregators do.
contract DevnetAggregatorProxy {
    uint256 private constant PHASE_OFFSET = 64;

    address public owner;
    uint16 public phaseId;
    address public proposedAggregator;
    mapping(uint16 phase => address aggregator) public phaseAggregators;

    event AggregatorProposed(address indexed current, address indexed proposed);
    event AggregatorConfirmed(address indexed previous, address indexed latest);

    constructor(address aggregator_) {
        owner = msg.sender;
        _setAggregator(aggregator_);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "only owner");
        _;
    }

    /// @notice The current phase's aggregator.
    function aggregator() public view returns (address) {
        return phaseAggregators[phaseId];
    }

    /// @notice First step of a replacement: `next` is readable through `proposedLatestRoundData`.
    function proposeAggregator(address next) external onlyOwner {
        proposedAggregator = next;
        emit AggregatorProposed(aggregator(), next);
    }

    /// @notice Second step: `next` (the proposed aggregator) becomes the current one, in a new phase.
    function confirmAggregator(address next) external onlyOwner {
        require(next == proposedAggregator, "Invalid proposed aggregator");
        address previous = aggregator();
        delete proposedAggregator;
        _setAggregator(next);
        emit AggregatorConfirmed(previous, next);
    }

    function _setAggregator(address next) internal {
        phaseId += 1;
        phaseAggregators[phaseId] = next;
    }

    function decimals() external view returns (uint8) {
        return AggregatorV3Interface(aggregator()).decimals();
    }

    function description() external view returns (string memory) {
        return AggregatorV3Interface(aggregator()).description();
    }

    function version() external view returns (uint256) {
        return AggregatorV3Interface(aggregator()).version();
    }

    /// @notice The current aggregator's latest round, its round ids with the phase added.
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) =
            AggregatorV3Interface(aggregator()).latestRoundData();
        return (_addPhase(roundId), answer, startedAt, updatedAt, _addPhase(answeredInRound));
    }

    /// @notice A round by its proxy round id (phase in the top bits), from that phase's aggregator.
    function getRoundData(uint80 roundId) external view returns (uint80, int256, uint256, uint256, uint80) {
        uint16 phase = uint16(roundId >> PHASE_OFFSET);
        (uint80 id, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) =
            AggregatorV3Interface(phaseAggregators[phase]).getRoundData(uint64(roundId));
        return (_withPhase(phase, id), answer, startedAt, updatedAt, _withPhase(phase, answeredInRound));
    }

    function _addPhase(uint80 roundId) internal view returns (uint80) {
        return _withPhase(phaseId, roundId);
    }

    function _withPhase(uint16 phase, uint80 roundId) internal pure returns (uint80) {
        return uint80((uint256(phase) << PHASE_OFFSET) | uint64(roundId));
    }
}
