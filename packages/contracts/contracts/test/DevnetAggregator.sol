// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AggregatorV2V3Interface} from "@chainlink/contracts/src/v0.8/shared/interfaces/AggregatorV2V3Interface.sol";

/// @title DevnetAggregator (test contract, not for production)
/// @notice Chainlink-style ETH/USD aggregator in the spirit of `MockV3Aggregator`: the
/// `AggregatorV3Interface` views plus `setRoundData`, which stores a round exactly as given (any
/// values, including stale or inconsistent ones, so that consumers' checks can be tested) and
/// makes it the latest round. Emits the standard `AnswerUpdated` and `NewRound` events.
contract DevnetAggregator is AggregatorV2V3Interface {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
        uint80 answeredInRound;
    }

    uint256 public constant override version = 4;
    uint8 public immutable override decimals;
    string internal _description;
    uint80 internal _latestRound;
    mapping(uint80 roundId => Round) internal _rounds;

    constructor(uint8 decimals_, string memory description_) {
        decimals = decimals_;
        _description = description_;
    }

    /// @notice Stores round `roundId` and makes it the latest round.
    function setRoundData(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
        external
    {
        _rounds[roundId] = Round(answer, startedAt, updatedAt, answeredInRound);
        _latestRound = roundId;
        emit NewRound(roundId, msg.sender, startedAt);
        emit AnswerUpdated(answer, roundId, updatedAt);
    }

    function description() external view override returns (string memory) {
        return _description;
    }

    function getRoundData(uint80 roundId)
        external
        view
        override
        returns (uint80, int256, uint256, uint256, uint80)
    {
        Round storage r = _rounds[roundId];
        return (roundId, r.answer, r.startedAt, r.updatedAt, r.answeredInRound);
    }

    function latestRoundData() external view override returns (uint80, int256, uint256, uint256, uint80) {
        Round storage r = _rounds[_latestRound];
        return (_latestRound, r.answer, r.startedAt, r.updatedAt, r.answeredInRound);
    }

    function latestAnswer() external view override returns (int256) {
        return _rounds[_latestRound].answer;
    }

    function latestTimestamp() external view override returns (uint256) {
        return _rounds[_latestRound].updatedAt;
    }

    function latestRound() external view override returns (uint256) {
        return _latestRound;
    }

    function getAnswer(uint256 roundId) external view override returns (int256) {
        return _rounds[uint80(roundId)].answer;
    }

    function getTimestamp(uint256 roundId) external view override returns (uint256) {
        return _rounds[uint80(roundId)].updatedAt;
    }
}
