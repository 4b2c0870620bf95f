// The flow mxlsrc reads, from start to stop: its reader, format and caps, and the reader of its grains or samples.
#pragma once

#include "FlowCaps.hpp"
#include "GrainReader.hpp"
#include "SampleReader.hpp"

#include <client/MxlHandles.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <gst/gst.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::gst
{
    struct ReadFlow
    {
        mxlInstance instance = nullptr;
        // Declared before the grain and sample readers, so that it is released after them.
        client::FlowReader reader;
        std::string id;
        FlowFormat format;
        // Grains (video: 1) or samples (audio) in each buffer.
        std::uint64_t unitsPerBuffer = 1;
        GstCaps* caps = nullptr;
        // Data negotiated as meta/x-st-2038: each grain's packets are repacked.
        bool st2038 = false;
        std::optional<GrainReader> grains;
        std::optional<SampleReader> samples;

        ReadFlow() = default;
        ReadFlow(ReadFlow const&) = delete;
        ReadFlow& operator=(ReadFlow const&) = delete;

        ~ReadFlow()
        {
            if (caps != nullptr)
            {
                gst_caps_unref(caps);
            }
        }
    };
}
