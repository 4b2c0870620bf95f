// Target mode: creates the flow from its definition, exposes its memory to initiators and reports what arrives.
#pragma once

#include "DemoOptions.hpp"
#include "Handles.hpp"
#include "InterfaceChoice.hpp"
#include "TransferStats.hpp"

#include <FabricsInstance.hpp>

#include <mxl/flowinfo.h>

#include <cstdint>
#include <string>

namespace mxl::demo
{
    class TargetApp
    {
    public:
        // Sets everything up and prints the ticket; throws ToolError.
        explicit TargetApp(DemoOptions const& options);

        // Receives until SIGINT/SIGTERM or --count grains, then prints the summary.
        void run();

        [[nodiscard]] std::string const& flowId() const noexcept
        {
            return _flowId;
        }

    private:
        // The grain being received: partial transfers of one grain arrive as several completions.
        struct GrainProgress
        {
            std::uint64_t index = 0;
            std::uint16_t validSlices = 0;
            bool completed = false;
            bool any = false;
        };

        std::uint64_t _count;
        tools::FabricsInstance _instance;
        FlowWriter _writer;
        mxlFlowConfigInfo _config{};
        std::string _flowId;
        // A reader of our own flow to see what each completion delivered (slices, flags) without touching it.
        FlowReader _reader;
        ChosenInterface _interface;
        FabricsTarget _target;
        TargetInfo _targetInfo;
        TransferStats _stats{TransferStats::Role::Target};
        GrainProgress _grain;

        void createFlow(DemoOptions const& options);
        void setUpTarget(std::string const& ticketFile);
        void receiveGrains();
        void receiveSamples();
        void account(std::uint64_t grainIndex);
        [[nodiscard]] bool done() const;
    };
}
