// A writer in the test process: writes patterned grains into a flow at its grain rate (paced by the TAI clock) and
// remembers each grain's checksum, the reference for what a target must receive.
#pragma once

#include "SourceFlow.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

namespace mxl::test
{
    class PatternSource : public SourceFlow
    {
    public:
        // `slicesPerCommit` 0 commits whole grains; otherwise each grain is committed in batches of that many slices,
        // spread over half the grain period, so that readers see (and initiators send) partial grains.
        // `writerOptions`: the writer's flow options JSON; with device payloads each slice range is copied into device memory.
        PatternSource(std::string const& domain, std::filesystem::path const& definition, std::uint16_t slicesPerCommit = 0,
                      std::string const& writerOptions = {});

        // The checksum of grain `index` as written, or nullopt if this source never wrote it.
        [[nodiscard]] std::optional<std::uint64_t> checksum(std::uint64_t index) const;

        [[nodiscard]] std::uint64_t grainsWritten() const noexcept
        {
            return _written.load();
        }

    private:
        std::uint16_t _slicesPerCommit;
        mutable std::mutex _mutex;
        std::map<std::uint64_t, std::uint64_t> _checksums;
        std::atomic<std::uint64_t> _written{0};
        std::jthread _thread;

        void writeLoop(std::stop_token const& stop);
        void record(std::uint64_t index, std::uint64_t checksum);
    };
}
