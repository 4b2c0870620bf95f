#include "AudioTransport.hpp"

#include <mxl/fabrics.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace mxl::bench
{
    namespace
    {
        constexpr char const* flowId = "c4a1e7d2-58b3-4f60-9e21-7d3b5a08f614";
        constexpr std::uint16_t readTimeoutMs = 100;
        constexpr auto connectTimeout = std::chrono::seconds{30};
        // Batch-aligned and far from zero, as TAI-derived sample indices are.
        constexpr std::uint64_t baseBatches = 1'000'000'000;

        void check(mxlStatus status, std::string const& what)
        {
            if (status != MXL_STATUS_OK)
            {
                throw std::runtime_error{fmt::format("{} failed with mxlStatus {}", what, static_cast<int>(status))};
            }
        }

        std::uint64_t headOf(std::uint64_t index, AudioShape const& shape)
        {
            return (baseBatches + index + 1) * shape.batchSamples;
        }

        std::string flowDefinition(AudioShape const& shape)
        {
            return fmt::format(R"({{"id":"{}","format":"urn:x-nmos:format:audio","label":"mxl-fabrics-audio-bench",)"
                               R"("tags":{{"urn:x-nmos:tag:grouphint/v1.0":["mxl-fabrics-audio-bench:Audio"]}},)"
                               R"("media_type":"audio/float32","sample_rate":{{"numerator":48000,"denominator":1}},)"
                               R"("bit_depth":32,"channel_count":{}}})",
                               flowId, shape.channels);
        }

        std::string batchOptions(AudioShape const& shape)
        {
            return fmt::format(R"({{"maxCommitBatchSizeHint":{0},"maxSyncBatchSizeHint":{0}}})", shape.batchSamples);
        }

        mxlFabricsInterfaceConfig interfaceConfig(TransportConfig const& config)
        {
            mxlFabricsInterfaceConfig interface {
            };
            interface.version = MXL_FABRICS_API_VERSION;
            check(mxlFabricsProviderFromString(config.provider.c_str(), &interface.provider), "mxlFabricsProviderFromString");
            interface.caps.version = MXL_FABRICS_API_VERSION;
            interface.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
            if (config.provider == "tcp")
            {
                interface.address.node = "127.0.0.1";
            }
            return interface;
        }

        // One end's instances and its flow writer, released in reverse order.
        class End
        {
        public:
            End(TransportConfig const& config, AudioShape const& shape)
                : mxl{mxlCreateInstance(config.domain.c_str(), nullptr)}
            {
                if (mxl == nullptr)
                {
                    throw std::runtime_error{"mxlCreateInstance failed for domain " + config.domain};
                }
                check(mxlFabricsCreateInstance(mxl, nullptr, &fabrics), "mxlFabricsCreateInstance");
                check(mxlCreateFlowWriter(mxl, flowDefinition(shape).c_str(), batchOptions(shape).c_str(), &writer, nullptr, nullptr),
                      "mxlCreateFlowWriter in " + config.domain);
            }

            ~End()
            {
                if (writer != nullptr)
                {
                    mxlReleaseFlowWriter(mxl, writer);
                }
                if (fabrics != nullptr)
                {
                    mxlFabricsDestroyInstance(fabrics);
                }
                mxlDestroyInstance(mxl);
            }

            End(End const&) = delete;
            End& operator=(End const&) = delete;

            mxlInstance mxl;
            mxlFabricsInstance fabrics = nullptr;
            mxlFlowWriter writer = nullptr;
        };

        class AudioTarget final : public TargetTransport
        {
        public:
            AudioTarget(TransportConfig const& config, AudioShape const& shape)
                : _shape{shape}
                , _end{config, shape}
            {
                check(mxlFabricsCreateTarget(_end.fabrics, &_target), "mxlFabricsCreateTarget");
                mxlFabricsTargetConfig targetConfig{};
                targetConfig.version = MXL_FABRICS_API_VERSION;
                targetConfig.interface = interfaceConfig(config);
                targetConfig.writer = _end.writer;
                auto const options = fmt::format(R"({{"cqDepth":{}}})", config.depth);
                check(mxlFabricsTargetSetup(_target, &targetConfig, options.c_str(), &_info), "mxlFabricsTargetSetup " + config.provider);
                std::size_t bytes = 0;
                check(mxlFabricsTargetInfoToString(_info, nullptr, &bytes), "mxlFabricsTargetInfoToString (size)");
                _ticket.resize(bytes);
                check(mxlFabricsTargetInfoToString(_info, _ticket.data(), &bytes), "mxlFabricsTargetInfoToString");
            }

            ~AudioTarget() override
            {
                mxlFabricsFreeTargetInfo(_info);
                mxlFabricsDestroyTarget(_end.fabrics, _target);
            }

            std::vector<char> ticket() const override
            {
                return _ticket;
            }

            std::optional<std::uint64_t> readGrain() override
            {
                std::uint64_t head = 0;
                std::size_t count = 0;
                auto const status = mxlFabricsTargetReadSamples(_target, readTimeoutMs, &head, &count);
                if (status == MXL_ERR_NOT_READY)
                {
                    return std::nullopt;
                }
                check(status, "mxlFabricsTargetReadSamples");
                return head / _shape.batchSamples - baseBatches - 1;
            }

        private:
            AudioShape _shape;
            End _end;
            mxlFabricsTarget _target = nullptr;
            mxlFabricsTargetInfo _info = nullptr;
            std::vector<char> _ticket;
        };

        class AudioInitiator final : public InitiatorTransport
        {
        public:
            AudioInitiator(TransportConfig const& config, AudioShape const& shape, std::vector<char> const& ticket)
                : _shape{shape}
                , _end{config, shape}
            {
                check(mxlCreateFlowReader(_end.mxl, flowId, nullptr, &_reader), "mxlCreateFlowReader");
                check(mxlFabricsCreateInitiator(_end.fabrics, &_initiator), "mxlFabricsCreateInitiator");
                mxlFabricsInitiatorConfig initiatorConfig{};
                initiatorConfig.version = MXL_FABRICS_API_VERSION;
                initiatorConfig.interface = interfaceConfig(config);
                initiatorConfig.reader = _reader;
                check(mxlFabricsInitiatorSetup(_initiator, &initiatorConfig, nullptr), "mxlFabricsInitiatorSetup " + config.provider);
                std::string const text{ticket.data(), ::strnlen(ticket.data(), ticket.size())};
                check(mxlFabricsTargetInfoFromString(text.c_str(), &_info), "mxlFabricsTargetInfoFromString");
                check(mxlFabricsInitiatorAddTarget(_initiator, _info), "mxlFabricsInitiatorAddTarget");
                auto const deadline = std::chrono::steady_clock::now() + connectTimeout;
                while (!progress())
                {
                    if (std::chrono::steady_clock::now() > deadline)
                    {
                        throw std::runtime_error{"the mxl audio initiator did not connect within 30 s"};
                    }
                }
            }

            ~AudioInitiator() override
            {
                if (_info != nullptr)
                {
                    mxlFabricsFreeTargetInfo(_info);
                }
                mxlFabricsDestroyInitiator(_end.fabrics, _initiator);
                mxlReleaseFlowReader(_end.mxl, _reader);
            }

            // The source's work: open and commit the batch (the samples are whatever the ring holds; no copy per batch).
            void stage(std::uint64_t index) override
            {
                mxlMutableWrappedMultiBufferSlice slices{};
                check(mxlFlowWriterOpenSamples(_end.writer, headOf(index, _shape), _shape.batchSamples, &slices),
                      "mxlFlowWriterOpenSamples");
                check(mxlFlowWriterCommitSamples(_end.writer), "mxlFlowWriterCommitSamples");
            }

            bool transfer(std::uint64_t index) override
            {
                auto const status = mxlFabricsInitiatorTransferSamples(_initiator, headOf(index, _shape), _shape.batchSamples);
                if (status == MXL_ERR_NOT_READY)
                {
                    return false;
                }
                check(status, fmt::format("mxlFabricsInitiatorTransferSamples {}", index));
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
            AudioShape _shape;
            End _end;
            mxlFlowReader _reader = nullptr;
            mxlFabricsInitiator _initiator = nullptr;
            mxlFabricsTargetInfo _info = nullptr;
        };
    }

    std::unique_ptr<TargetTransport> makeMxlAudioTarget(TransportConfig const& config, AudioShape const& shape)
    {
        return std::make_unique<AudioTarget>(config, shape);
    }

    std::unique_ptr<InitiatorTransport> makeMxlAudioInitiator(TransportConfig const& config, AudioShape const& shape,
                                                              std::vector<char> const& ticket)
    {
        return std::make_unique<AudioInitiator>(config, shape, ticket);
    }
}
