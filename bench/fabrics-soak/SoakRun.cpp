#include "SoakRun.hpp"

#include "CheckMxlStatus.hpp"
#include "FabricsInitiator.hpp"
#include "FabricsTarget.hpp"
#include "GrainSignature.hpp"
#include "MxlEnd.hpp"
#include "SharedArena.hpp"
#include "SharedTicket.hpp"
#include "TemporaryDomains.hpp"

#include <mxl/fabrics_state.h>
#include <mxl/flow.h>

#include <fmt/format.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mxl::bench
{
    namespace
    {
        constexpr char const* flowId = "9b0e4c1a-6d2f-4e8b-a3c5-1f7d2e9b4a60";
        constexpr std::uint64_t firstIndex = 1000;
        // Grains the source may run ahead of the checker: well inside the rings, so nothing is overrun by design.
        constexpr std::uint64_t window = 6;
        constexpr std::size_t ticketCapacity = 64 * 1024;
        constexpr std::size_t errorCapacity = 512;
        // A ring of 0.5 s: 30 grains, enough for the window and the writes in flight.
        constexpr std::uint64_t historyNs = 500'000'000;

        std::string flowDefinition(std::string const& format)
        {
            auto const [width, height] = format == "2160p" ? std::pair{3840, 2160} : std::pair{1920, 1080};
            return fmt::format(R"({{"id":"{}","format":"urn:x-nmos:format:video","label":"mxl-fabrics-soak-bench",)"
                               R"("tags":{{"urn:x-nmos:tag:grouphint/v1.0":["mxl-fabrics-soak-bench:Video"]}},)"
                               R"("media_type":"video/v210","grain_rate":{{"numerator":60000,"denominator":1001}},)"
                               R"("frame_width":{},"frame_height":{},"interlace_mode":"progressive"}})",
                               flowId, width, height);
        }

        struct Shared
        {
            SharedTicket<ticketCapacity> ticket;
            // The next index the checker looks at.
            std::atomic<std::uint64_t> checkedUpTo;
            std::atomic<int> connected;
            std::atomic<int> initiatorDone;
            std::atomic<int> checkerDone;
            // Set by the parent once it has read the ends' footprints: the ends may tear down.
            std::atomic<int> release;
            std::atomic<int> failed;
            std::atomic<std::uint64_t> sent;
            std::atomic<std::uint64_t> reported;
            std::atomic<std::uint64_t> verified;
            std::atomic<std::uint64_t> bad;
            std::atomic<std::uint64_t> torn;
            std::atomic<std::uint64_t> lost;
            char error[3][errorCapacity];
        };

        enum End
        {
            targetEnd,
            initiatorEnd,
            checkerEnd,
        };

        void awaitFlag(std::atomic<int> const& flag, Shared const& shared, char const* what)
        {
            auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
            while (flag.load(std::memory_order_acquire) == 0)
            {
                if (shared.failed.load() != 0)
                {
                    throw std::runtime_error{"the other end failed"};
                }
                if (std::chrono::steady_clock::now() > deadline)
                {
                    throw std::runtime_error{fmt::format("stuck waiting for {}", what)};
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
        }

        void runTarget(Shared& shared, SoakConfig const& config, std::string const& domain)
        {
            MxlEnd end{domain, flowDefinition(config.format), nullptr};
            FabricsTarget target{end, config.provider, 64};
            shared.ticket.publish(target.ticket());
            while (shared.checkerDone.load(std::memory_order_acquire) == 0 && shared.failed.load() == 0)
            {
                static_cast<void>(target.readGrain());
            }
            awaitFlag(shared.release, shared, "the footprint reading");
        }

        void runInitiator(Shared& shared, SoakConfig const& config, std::string const& domain)
        {
            while (!shared.ticket.published())
            {
                if (shared.failed.load() != 0)
                {
                    throw std::runtime_error{"the target failed"};
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
            MxlEnd end{domain, flowDefinition(config.format), nullptr};
            FabricsInitiator initiator{end, flowId, config.provider, std::nullopt, shared.ticket.read()};
            shared.connected.store(1, std::memory_order_release);
            for (auto index = firstIndex; index < firstIndex + config.grains; ++index)
            {
                while (index - shared.checkedUpTo.load(std::memory_order_acquire) >= window)
                {
                    initiator.progress();
                    if (shared.failed.load() != 0)
                    {
                        throw std::runtime_error{"another end failed"};
                    }
                }
                mxlGrainInfo grain;
                std::uint8_t* payload = nullptr;
                checkMxlStatus(mxlFlowWriterOpenGrain(end.writer(), index, &grain, &payload), "mxlFlowWriterOpenGrain");
                signGrain(payload, grain.grainSize, index);
                grain.validSlices = grain.totalSlices;
                checkMxlStatus(mxlFlowWriterCommitGrain(end.writer(), &grain), "mxlFlowWriterCommitGrain");
                auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
                while (!initiator.transferGrain(index, grain.totalSlices))
                {
                    initiator.progress();
                    if (std::chrono::steady_clock::now() > deadline)
                    {
                        throw std::runtime_error{fmt::format("grain {} could not be posted for 10 s", index)};
                    }
                }
                initiator.progress();
                shared.sent.store(index - firstIndex + 1, std::memory_order_release);
            }
            while (!initiator.progress())
            {
            }
            shared.reported.store(initiator.invalidated(), std::memory_order_release);
            shared.initiatorDone.store(1, std::memory_order_release);
            awaitFlag(shared.release, shared, "the footprint reading");
        }

        std::uint64_t headOf(mxlFlowReader reader)
        {
            mxlFlowRuntimeInfo runtime{};
            checkMxlStatus(mxlFlowReaderGetRuntimeInfo(reader, &runtime), "mxlFlowReaderGetRuntimeInfo");
            return runtime.headIndex;
        }

        void runChecker(Shared& shared, SoakConfig const& config, std::string const& domain)
        {
            while (!shared.ticket.published())
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
            auto* instance = mxlCreateInstance(domain.c_str(), nullptr);
            if (instance == nullptr)
            {
                throw std::runtime_error{fmt::format("mxlCreateInstance({}) failed", domain)};
            }
            mxlFlowReader reader = nullptr;
            checkMxlStatus(mxlCreateFlowReader(instance, flowId, nullptr, &reader), "mxlCreateFlowReader");
            auto const last = firstIndex + config.grains;
            auto next = firstIndex;
            auto quietSince = std::chrono::steady_clock::now();
            while (next < last)
            {
                mxlGrainInfo grain;
                std::uint8_t* payload = nullptr;
                auto const status = mxlFlowReaderGetGrain(reader, next, 100'000'000, &grain, &payload);
                if (status == MXL_STATUS_OK)
                {
                    if ((grain.flags & MXL_GRAIN_FLAG_INVALID) != 0)
                    {
                        shared.lost.fetch_add(1);
                    }
                    else
                    {
                        switch (judgeGrain(payload, grain.grainSize, next))
                        {
                        case Verdict::Intact:
                            shared.verified.fetch_add(1);
                            break;
                        case Verdict::Torn:
                            shared.torn.fetch_add(1);
                            break;
                        case Verdict::Bad:
                            shared.bad.fetch_add(1);
                            break;
                        }
                    }
                }
                else if (status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY || status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
                {
                    // Behind the head, or gone from the ring: this grain will not come.
                    auto const passed = headOf(reader) > next || status == MXL_ERR_OUT_OF_RANGE_TOO_LATE;
                    auto const given =
                        shared.initiatorDone.load() != 0 && std::chrono::steady_clock::now() - quietSince > std::chrono::seconds{2};
                    if (!passed && !given)
                    {
                        continue;
                    }
                    shared.lost.fetch_add(1);
                }
                else
                {
                    checkMxlStatus(status, fmt::format("mxlFlowReaderGetGrain {}", next));
                }
                ++next;
                quietSince = std::chrono::steady_clock::now();
                shared.checkedUpTo.store(next, std::memory_order_release);
            }
            mxlReleaseFlowReader(instance, reader);
            mxlDestroyInstance(instance);
            shared.checkerDone.store(1, std::memory_order_release);
        }

        [[noreturn]] void runChild(End end, Shared& shared, SoakConfig const& config, TemporaryDomains const& domains)
        {
            int exitCode = 0;
            try
            {
                switch (end)
                {
                case targetEnd:
                    runTarget(shared, config, domains.target());
                    break;
                case initiatorEnd:
                    runInitiator(shared, config, domains.initiator());
                    break;
                case checkerEnd:
                    runChecker(shared, config, domains.target());
                    break;
                }
            }
            catch (std::exception const& e)
            {
                std::snprintf(shared.error[end], errorCapacity, "%s", e.what());
                shared.failed.store(1, std::memory_order_release);
                exitCode = 1;
            }
            ::_exit(exitCode);
        }

        ProcessFootprint footprintOf(pid_t pid)
        {
            ProcessFootprint footprint;
            std::ifstream status{fmt::format("/proc/{}/status", pid)};
            for (std::string line; std::getline(status, line);)
            {
                if (line.starts_with("VmRSS:"))
                {
                    footprint.rssKiB = std::stoull(line.substr(6));
                }
            }
            std::error_code ignored;
            for ([[maybe_unused]] auto const& entry : std::filesystem::directory_iterator{fmt::format("/proc/{}/fd", pid), ignored})
            {
                ++footprint.openFds;
            }
            return footprint;
        }
    }

    SoakResult runSoak(SoakConfig const& config)
    {
        TemporaryDomains const domains{"mxl-fabrics-soak-bench", historyNs};
        SharedArena arena{sizeof(Shared)};
        auto* shared = new (arena.as<Shared>()) Shared{};
        shared->checkedUpTo.store(firstIndex);

        std::vector<pid_t> children;
        for (auto const end : {targetEnd, initiatorEnd, checkerEnd})
        {
            auto const child = ::fork();
            if (child < 0)
            {
                throw std::runtime_error{fmt::format("fork failed: {}", std::strerror(errno))};
            }
            if (child == 0)
            {
                runChild(end, *shared, config, domains);
            }
            children.push_back(child);
        }

        SoakResult result;
        auto const finish = [&](std::string const& problem)
        {
            shared->failed.store(1);
            shared->release.store(1);
            for (auto const child : children)
            {
                ::kill(child, SIGKILL);
                ::waitpid(child, nullptr, 0);
            }
            std::string ends;
            for (auto const& error : shared->error)
            {
                if (error[0] != '\0')
                {
                    ends += fmt::format("; {}", error);
                }
            }
            throw std::runtime_error{problem + ends};
        };
        auto const await = [&](auto&& ready, char const* what)
        {
            while (!ready())
            {
                if (shared->failed.load() != 0)
                {
                    finish(fmt::format("an end failed while {}", what));
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{10});
            }
        };
        await([&] { return shared->connected.load() != 0; }, "connecting");
        // The footprints at start: after the first grains, with every registration and connection made.
        await([&] { return shared->checkedUpTo.load() > firstIndex + std::min<std::uint64_t>(50, config.grains - 1); }, "starting");
        auto const started = std::chrono::steady_clock::now();
        result.targetStart = footprintOf(children[targetEnd]);
        result.initiatorStart = footprintOf(children[initiatorEnd]);
        await([&] { return shared->checkerDone.load() != 0 && shared->initiatorDone.load() != 0; }, "moving grains");
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        result.targetEnd = footprintOf(children[targetEnd]);
        result.initiatorEnd = footprintOf(children[initiatorEnd]);
        shared->release.store(1);
        bool succeeded = true;
        for (auto const child : children)
        {
            int status = 0;
            ::waitpid(child, &status, 0);
            succeeded = succeeded && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }
        if (!succeeded)
        {
            finish("an end exited with an error");
        }
        result.sent = shared->sent.load();
        result.verified = shared->verified.load();
        result.bad = shared->bad.load();
        result.torn = shared->torn.load();
        result.lost = shared->lost.load();
        result.reported = shared->reported.load();
        return result;
    }
}
