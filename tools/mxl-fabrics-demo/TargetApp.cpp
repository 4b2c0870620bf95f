#include "TargetApp.hpp"

#include "TextFile.hpp"
#include "Ticket.hpp"
#include "ToolError.hpp"
#include "common/Base64.hpp"

#include <ExitRequest.hpp>
#include <FabricsInterfaces.hpp>
#include <common/Log.hpp>

#include <mxl/dataformat.h>
#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace mxl::demo
{
    namespace
    {
        // Long enough to keep the loop idle while nothing arrives, short enough to see a signal promptly.
        constexpr std::uint16_t readTimeoutMs = 200;

        std::string formatUuid(std::uint8_t const (&id)[16])
        {
            std::string text;
            for (std::size_t i = 0; i < 16; ++i)
            {
                if (i == 4 || i == 6 || i == 8 || i == 10)
                {
                    text += '-';
                }
                text += fmt::format("{:02x}", id[i]);
            }
            return text;
        }

        std::uint64_t bytesPerSlice(mxlFlowConfigInfo const& config)
        {
            std::uint64_t bytes = 0;
            for (auto const size : config.discrete.sliceSizes)
            {
                bytes += size;
            }
            return bytes;
        }
    }

    TargetApp::TargetApp(DemoOptions const& options)
        : _count{options.count}
        , _instance{options.domain}
    {
        // The interface first: a wrong provider, node or service should not leave a flow behind.
        _interface = chooseInterface(_instance.fabrics(), options.provider, options.node, options.service, EndpointRole::Target);
        createFlow(options);
        setUpTarget(options.targetInfo.empty() ? std::string{} : options.targetInfo.front());
    }

    void TargetApp::createFlow(DemoOptions const& options)
    {
        auto const definition = tools::readTextFile(options.flow, "flow definition");
        auto const writerOptions =
            options.flowOptionsFile.empty() ? std::string{} : tools::readTextFile(options.flowOptionsFile, "flow options");

        mxlFlowWriter writer = nullptr;
        bool created = false;
        auto const status = ::mxlCreateFlowWriter(_instance.mxl(), definition.c_str(),
                                                  writerOptions.empty() ? nullptr : writerOptions.c_str(), &writer, &_config, &created);
        if (status == MXL_ERR_UNKNOWN || status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("flow definition '{}'{} rejected (mxlStatus {}; MXL_LOG_LEVEL=warn shows why)", options.flow,
                            writerOptions.empty() ? "" : fmt::format(" with options '{}'", options.flowOptionsFile),
                            static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot create a writer for flow definition '{}' in domain '{}' (mxlStatus {})", options.flow,
                                  options.domain, static_cast<int>(status));
        }
        _writer = FlowWriter{_instance.mxl(), writer};
        _flowId = formatUuid(_config.common.id);
        if (!created)
        {
            fmt::print(stderr, "mxl-fabrics-demo: warning: reusing existing flow {} in domain '{}' (its definition file was ignored)\n",
                       _flowId, options.domain);
        }

        mxlFlowReader reader = nullptr;
        if (auto const readerStatus = ::mxlCreateFlowReader(_instance.mxl(), _flowId.c_str(), nullptr, &reader);
            readerStatus != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot read back flow {} (mxlStatus {})", _flowId, static_cast<int>(readerStatus));
        }
        _reader = FlowReader{_instance.mxl(), reader};
        fmt::print("Target flow: {}\n", _flowId);
    }

    void TargetApp::setUpTarget(std::string const& ticketFile)
    {
        mxlFabricsTarget target = nullptr;
        if (auto const status = ::mxlFabricsCreateTarget(_instance.fabrics(), &target); status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot create a fabrics target (mxlStatus {})", static_cast<int>(status));
        }
        _target = FabricsTarget{_instance.fabrics(), target};

        mxlFabricsTargetConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.interface = interfaceConfig(_interface);
        config.writer = _writer.get();
        mxlFabricsTargetInfo info = nullptr;
        auto const status = ::mxlFabricsTargetSetup(target, &config, nullptr, &info);
        if (status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("the {} target cannot listen on node '{}' service '{}' (mxlStatus {})",
                            tools::providerName(_interface.provider), _interface.node, _interface.service, static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("{} target setup on node '{}' service '{}' failed (mxlStatus {})",
                                  tools::providerName(_interface.provider), _interface.node, _interface.service, static_cast<int>(status));
        }
        _targetInfo = TargetInfo{info};

        std::size_t size = 0;
        if (auto const sizeStatus = ::mxlFabricsTargetInfoToString(info, nullptr, &size); sizeStatus != MXL_STATUS_OK || size == 0)
        {
            tools::runtimeFailure("cannot serialize the target info (mxlStatus {})", static_cast<int>(sizeStatus));
        }
        std::vector<char> text(size);
        if (auto const textStatus = ::mxlFabricsTargetInfoToString(info, text.data(), &size); textStatus != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot serialize the target info (mxlStatus {})", static_cast<int>(textStatus));
        }
        // The size counts the terminating NUL, which belongs neither in the base64 nor in the file.
        std::string const json{text.data()};
        if (!ticketFile.empty())
        {
            writeTicketFile(ticketFile, json);
        }
        fmt::print("Target info: {}\n", mxl::encodeBase64(json));
        std::fflush(stdout);
    }

    bool TargetApp::done() const
    {
        return tools::exitRequested() || (_count != 0 && _stats.grains() >= _count);
    }

    void TargetApp::run()
    {
        if (mxlIsDiscreteDataFormat(static_cast<int>(_config.common.format)))
        {
            receiveGrains();
        }
        else
        {
            receiveSamples();
        }
        _stats.printSummary();
    }

    void TargetApp::receiveGrains()
    {
        bool const blocking = _interface.blocking();
        while (!done())
        {
            _stats.printIfDue();
            std::uint64_t grainIndex = 0;
            auto const status = blocking ? ::mxlFabricsTargetReadGrain(_target.get(), readTimeoutMs, &grainIndex)
                                         : ::mxlFabricsTargetReadGrainNonBlocking(_target.get(), &grainIndex);
            if (status == MXL_STATUS_OK)
            {
                account(grainIndex);
            }
            else if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                // The slot was rewritten before this loop read it (the library logged which grain): that grain is lost.
                _stats.grainsLost(1);
            }
            else if (status != MXL_ERR_NOT_READY && status != MXL_ERR_INTERRUPTED)
            {
                tools::runtimeFailure("reading grains from the fabric failed (mxlStatus {})", static_cast<int>(status));
            }
        }
    }

    // The library has already published the grain to local readers (validSlices from the transfer, head index, wake-up),
    // so the SDK demo's OpenGrain + CommitGrain would only repeat that; this only looks at what arrived.
    void TargetApp::account(std::uint64_t grainIndex)
    {
        mxlGrainInfo info{};
        std::uint8_t* payload = nullptr;
        if (auto const status =
                ::mxlFlowReaderGetGrainSliceNonBlocking(_reader.get(), grainIndex, MXL_GRAIN_VALID_SLICES_ANY, &info, &payload);
            status != MXL_STATUS_OK)
        {
            // Already overwritten by a later grain: the ring is short and this loop was slow; count it as whole.
            log::debug("grain {} arrived but is no longer readable (mxlStatus {})", grainIndex, static_cast<int>(status));
            info.validSlices = info.totalSlices = 0;
        }

        if (!_grain.any || grainIndex != _grain.index)
        {
            if (_grain.any && grainIndex > _grain.index + 1)
            {
                _stats.grainsLost(grainIndex - _grain.index - 1);
            }
            _grain = GrainProgress{grainIndex, 0, false, true};
        }
        if (info.validSlices > _grain.validSlices)
        {
            _stats.bytesMoved((info.validSlices - _grain.validSlices) * bytesPerSlice(_config));
            _grain.validSlices = info.validSlices;
        }
        bool const invalid = (info.flags & MXL_GRAIN_FLAG_INVALID) != 0;
        log::debug("grain {} slices {}/{} bytes {}{}", grainIndex, info.validSlices, info.totalSlices,
                   info.validSlices * bytesPerSlice(_config), invalid ? " (invalid)" : "");
        if (!_grain.completed && (invalid || info.validSlices >= info.totalSlices))
        {
            _grain.completed = true;
            _stats.grainCompleted();
        }
    }

    void TargetApp::receiveSamples()
    {
        std::uint64_t expectedHead = 0;
        while (!done())
        {
            _stats.printIfDue();
            std::uint64_t headIndex = 0;
            std::size_t count = 0;
            auto const status = ::mxlFabricsTargetReadSamples(_target.get(), readTimeoutMs, &headIndex, &count);
            if (status == MXL_ERR_NOT_READY || status == MXL_ERR_INTERRUPTED)
            {
                continue;
            }
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                // An initiator overwrote a bounce-buffer entry before this loop read it (the library logged which); the
                // batch is gone, the next one is not.
                _stats.grainsLost(1);
                continue;
            }
            if (status != MXL_STATUS_OK)
            {
                tools::runtimeFailure("reading samples from the fabric failed (mxlStatus {})", static_cast<int>(status));
            }
            if (expectedHead != 0 && headIndex != expectedHead)
            {
                _stats.grainsLost(1);
            }
            expectedHead = headIndex + count;
            mxlWrappedMultiBufferSlice slices{};
            std::uint64_t bytes = 0;
            if (::mxlFlowReaderGetSamplesNonBlocking(_reader.get(), headIndex, count, &slices) == MXL_STATUS_OK)
            {
                bytes = (slices.base.fragments[0].size + slices.base.fragments[1].size) * slices.count;
            }
            log::debug("samples up to {} count {} bytes {}", headIndex, count, bytes);
            // The library copied the batch into the flow and committed it: local readers already see it.
            _stats.bytesMoved(bytes);
            _stats.grainCompleted();
        }
    }
}
