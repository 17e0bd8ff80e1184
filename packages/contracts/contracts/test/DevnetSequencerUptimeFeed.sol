// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AggregatorV2V3Interface} from "@chainlink/contracts/src/v0.8/shared/interfaces/AggregatorV2V3Interface.sol";

/// @title DevnetSequencerUptimeFeed (test contract, not for production)
/// @notice L2 sequencer uptime feed in the Chainlink format: answer 0 = sequencer up, 1 = down;
/// `startedAt` = when the status last changed. `setStatus` starts a new round (round ids 1, 2, ...)
/// with `updatedAt` = the block timestamp, and emits `NewRound` and `AnswerUpdated`.
contract DevnetSequencerUptimeFeed is AggregatorV2V3Interface {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint256 public constant override version = 1;
    uint8 public constant override decimals = 0;
    uint80 internal _latestRound;
    mapping(uint80 roundId => Round) internal _rounds;

    constructor(int256 answer, uint256 startedAt) {
        _set(answer, startedAt);
    }

    /// @notice Records a new status (0 up, 1 down) that changed at `startedAt`.
    function setStatus(int256 answer, uint256 startedAt) external {
        _set(answer, startedAt);
    }

    function _set(int256 answer, uint256 startedAt) internal {
        _latestRound += 1;
        _rounds[_latestRound] = Round(answer, startedAt, block.timestamp);
        emit NewRound(_latestRound, msg.sender, startedAt);
        emit AnswerUpdated(answer, _latestRound, block.timestamp);
    }

    function description() external pure override returns (string memory) {
        return "L2 Sequencer Uptime Status Feed";
    }

    function getRoundData(uint80 roundId)
        external
        view
        override
        returns (uint80, int256, uint256, uint256, uint80)
    {
        Round storage r = _rounds[roundId];
        return (roundId, r.answer, r.startedAt, r.updatedAt, roundId);
    }

    function latestRoundData() external view override returns (uint80, int256, uint256, uint256, uint80) {
        Round storage r = _rounds[_latestRound];
        return (_latestRound, r.answer, r.startedAt, r.updatedAt, _latestRound);
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
