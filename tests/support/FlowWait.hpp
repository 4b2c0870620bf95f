// A reader of a flow that another process creates: tests start a writer (or a target) and read what it writes.
#pragma once

#include <client/MxlHandles.hpp>

#include <chrono>
#include <string>

namespace mxl::test
{
    // Tries to open `flowId` until it exists or `timeout` passes, then throws std::runtime_error naming the flow.
    client::FlowReader readerWhenThere(client::Instance const& instance, std::string const& flowId,
                                       std::chrono::milliseconds timeout = std::chrono::seconds{5});
}
