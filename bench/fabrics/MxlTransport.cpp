// libmxl-fabrics driven through its public C API only: a target whose flow writer receives the grains, and an
// initiator that writes and commits grains into its own source flow and transfers each one.
#include "Transport.hpp"

#include <mxl/fabrics.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

namespace mxl::bench
{
    namespace
    {
        constexpr char const* flowId = "5f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
        constexpr std::uint16_t readTimeoutMs = 100;
        constexpr auto connectTimeout = std::chrono::seconds{30};

        void check(mxlStatus status, std::string const& what)
        {
            if (status != MXL_STATUS_OK)
            {
                throw std::runtime_error{fmt::format("{} failed with mxlStatus {}", what, static_cast<int>(status))};
            }
        }

        // Releases what a constructor acquired, newest first, even when the constructor throws half-way.
        class ReleaseStack
        {
        public:
            ReleaseStack() = default;
            ReleaseStack(ReleaseStack const&) = delete;
            ReleaseStack& operator=(ReleaseStack const&) = delete;

            ~ReleaseStack()
            {
                for (auto it = _releases.rbegin(); it != _releases.rend(); ++it)
                {
                    (*it)();
                }
            }

            void push(std::function<void()> release)
            {
                _releases.push_back(std::move(release));
            }

        private:
            std::vector<std::function<void()>> _releases;
        };

        // The 50 Hz v210 flow both ends use; the ring holds `ringSlots` grains because the domain's history says so.
        std::string flowDefinition(GrainFormat const& format)
        {
            return fmt::format(R"({{"id":"{}","format":"urn:x-nmos:format:video","label":"mxl-fabrics-bench",)"
                               R"("tags":{{"urn:x-nmos:tag:grouphint/v1.0":["mxl-fabrics-bench:Video"]}},)"
                               R"("media_type":"video/v210","grain_rate":{{"numerator":50,"denominator":1}},)"
                               R"("frame_width":{},"frame_height":{},"interlace_mode":"progressive"}})",
                               flowId, format.width, format.height);
        }

        mxlFabricsInterfaceConfig interfaceConfig(TransportConfig const& config)
        {
            mxlFabricsInterfaceConfig interface {
            };
            interface.version = MXL_FABRICS_API_VERSION;
            check(mxlFabricsProviderFromString(config.provider.c_str(), &interface.provider),
                  "mxlFabricsProviderFromString " + config.provider);
            interface.caps.version = MXL_FABRICS_API_VERSION;
            interface.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
            // shm endpoints stay unnamed: the library then picks a name unique to the process.
            if (config.provider == "tcp")
            {
                interface.address.node = "127.0.0.1";
            }
            return interface;
        }

        std::string queueOptions(TransportConfig const& config)
        {
            return fmt::format(R"({{"cqDepth":{}}})", config.depth);
        }

        // The mxl and fabrics instances of one end.
        class Instances
        {
        public:
            Instances(TransportConfig const& config, ReleaseStack& releases)
            {
                mxl = mxlCreateInstance(config.domain.c_str(), nullptr);
                if (mxl == nullptr)
                {
                    throw std::runtime_error{"mxlCreateInstance failed for domain " + config.domain};
                }
                releases.push([instance = mxl] { mxlDestroyInstance(instance); });
                check(mxlFabricsCreateInstance(mxl, nullptr, &fabrics), "mxlFabricsCreateInstance");
                releases.push([instance = fabrics] { mxlFabricsDestroyInstance(instance); });
            }

            mxlInstance mxl = nullptr;
            mxlFabricsInstance fabrics = nullptr;
        };

        mxlFlowWriter createWriter(Instances const& instances, TransportConfig const& config, ReleaseStack& releases,
                                   mxlFlowConfigInfo* flowConfig = nullptr)
        {
            mxlFlowWriter writer = nullptr;
            check(mxlCreateFlowWriter(instances.mxl, flowDefinition(config.format).c_str(), nullptr, &writer, flowConfig, nullptr),
                  "mxlCreateFlowWriter in " + config.domain);
            releases.push([instance = instances.mxl, writer] { mxlReleaseFlowWriter(instance, writer); });
            return writer;
        }

        class MxlTarget final : public TargetTransport
        {
        public:
            explicit MxlTarget(TransportConfig const& config)
                : _instances{config, _releases}
            {
                auto* const writer = createWriter(_instances, config, _releases);
                check(mxlFabricsCreateTarget(_instances.fabrics, &_target), "mxlFabricsCreateTarget");
                _releases.push([instance = _instances.fabrics, target = _target] { mxlFabricsDestroyTarget(instance, target); });

                mxlFabricsTargetConfig targetConfig{};
                targetConfig.version = MXL_FABRICS_API_VERSION;
                targetConfig.interface = interfaceConfig(config);
                targetConfig.writer = writer;
                mxlFabricsTargetInfo info = nullptr;
                check(mxlFabricsTargetSetup(_target, &targetConfig, queueOptions(config).c_str(), &info),
                      fmt::format("mxlFabricsTargetSetup ({})", config.provider));
                _releases.push([info] { mxlFabricsFreeTargetInfo(info); });

                std::size_t bytes = 0;
                check(mxlFabricsTargetInfoToString(info, nullptr, &bytes), "mxlFabricsTargetInfoToString (size)");
                _ticket.resize(bytes);
                check(mxlFabricsTargetInfoToString(info, _ticket.data(), &bytes), "mxlFabricsTargetInfoToString");
            }

            std::vector<char> ticket() const override
            {
                return _ticket;
            }

            std::optional<std::uint64_t> readGrain() override
            {
                std::uint64_t index = 0;
                auto const status = mxlFabricsTargetReadGrain(_target, readTimeoutMs, &index);
                if (status == MXL_ERR_NOT_READY)
                {
                    return std::nullopt;
                }
                check(status, "mxlFabricsTargetReadGrain");
                return index;
            }

        private:
            ReleaseStack _releases;
            Instances _instances;
            mxlFabricsTarget _target = nullptr;
            std::vector<char> _ticket;
        };

        class MxlInitiator final : public InitiatorTransport
        {
        public:
            MxlInitiator(TransportConfig const& config, std::vector<char> const& ticket)
                : _instances{config, _releases}
                , _writer{createWriter(_instances, config, _releases, &_flowConfig)}
            {
                fillRingOnce();
                mxlFlowReader reader = nullptr;
                check(mxlCreateFlowReader(_instances.mxl, flowId, nullptr, &reader), "mxlCreateFlowReader");
                _releases.push([instance = _instances.mxl, reader] { mxlReleaseFlowReader(instance, reader); });
                check(mxlFabricsCreateInitiator(_instances.fabrics, &_initiator), "mxlFabricsCreateInitiator");
                _releases.push([instance = _instances.fabrics, initiator = _initiator]
                               { mxlFabricsDestroyInitiator(instance, initiator); });

                mxlFabricsInitiatorConfig initiatorConfig{};
                initiatorConfig.version = MXL_FABRICS_API_VERSION;
                initiatorConfig.interface = interfaceConfig(config);
                initiatorConfig.reader = reader;
                check(mxlFabricsInitiatorSetup(_initiator, &initiatorConfig, queueOptions(config).c_str()),
                      fmt::format("mxlFabricsInitiatorSetup ({})", config.provider));

                std::string const text{ticket.data(), ::strnlen(ticket.data(), ticket.size())};
                mxlFabricsTargetInfo info = nullptr;
                check(mxlFabricsTargetInfoFromString(text.c_str(), &info), "mxlFabricsTargetInfoFromString");
                _releases.push([info] { mxlFabricsFreeTargetInfo(info); });
                check(mxlFabricsInitiatorAddTarget(_initiator, info), "mxlFabricsInitiatorAddTarget");
                awaitConnection();
            }

            void stage(std::uint64_t index) override
            {
                mxlGrainInfo grain;
                std::uint8_t* payload = nullptr;
                check(mxlFlowWriterOpenGrain(_writer, index, &grain, &payload), fmt::format("mxlFlowWriterOpenGrain {}", index));
                grain.validSlices = grain.totalSlices;
                check(mxlFlowWriterCommitGrain(_writer, &grain), fmt::format("mxlFlowWriterCommitGrain {}", index));
            }

            bool transfer(std::uint64_t index) override
            {
                auto const status = mxlFabricsInitiatorTransferGrain(_initiator, index, 0, _totalSlices);
                if (status == MXL_ERR_NOT_READY)
                {
                    return false;
                }
                check(status, fmt::format("mxlFabricsInitiatorTransferGrain {}", index));
                return true;
            }

            bool progress() override
            {
                auto const status = mxlFabricsInitiatorMakeProgressNonBlocking(_initiator);
                if (status == MXL_ERR_NOT_READY)
                {
                    return false;
                }
                check(status, "mxlFabricsInitiatorMakeProgressNonBlocking");
                return true;
            }

        private:
            // The payload is written once per ring slot; the measured loop only opens and commits (no copy per grain).
            void fillRingOnce()
            {
                for (std::uint32_t slot = 0; slot < _flowConfig.discrete.grainCount; ++slot)
                {
                    mxlGrainInfo grain;
                    std::uint8_t* payload = nullptr;
                    check(mxlFlowWriterOpenGrain(_writer, slot, &grain, &payload), "mxlFlowWriterOpenGrain (fill)");
                    _totalSlices = grain.totalSlices;
                    std::memset(payload, 0x5a, grain.grainSize);
                    check(mxlFlowWriterCancelGrain(_writer), "mxlFlowWriterCancelGrain (fill)");
                }
            }

            // Transfers to a target that is not connected yet are dropped, so wait until progress reports all idle.
            void awaitConnection()
            {
                auto const deadline = std::chrono::steady_clock::now() + connectTimeout;
                while (!progress())
                {
                    if (std::chrono::steady_clock::now() > deadline)
                    {
                        throw std::runtime_error{"the mxl initiator did not connect to its target within 30 s"};
                    }
                }
            }

            ReleaseStack _releases;
            Instances _instances;
            mxlFlowConfigInfo _flowConfig{};
            mxlFlowWriter _writer;
            mxlFabricsInitiator _initiator = nullptr;
            std::uint16_t _totalSlices = 0;
        };
    }

    bool mxlTransportAvailable() noexcept
    {
        return true;
    }

    std::unique_ptr<TargetTransport> makeMxlTarget(TransportConfig const& config)
    {
        return std::make_unique<MxlTarget>(config);
    }

    std::unique_ptr<InitiatorTransport> makeMxlInitiator(TransportConfig const& config, std::vector<char> const& ticket)
    {
        return std::make_unique<MxlInitiator>(config, ticket);
    }
}
