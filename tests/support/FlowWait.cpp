#include "FlowWait.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <thread>

namespace mxl::test
{
    client::FlowReader readerWhenThere(client::Instance const& instance, std::string const& flowId, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (true)
        {
            mxlFlowReader reader = nullptr;
            if (::mxlCreateFlowReader(instance.get(), flowId.c_str(), nullptr, &reader) == MXL_STATUS_OK)
            {
                return client::FlowReader{instance.get(), reader};
            }
            if (std::chrono::steady_clock::now() >= deadline)
            {
                throw std::runtime_error{fmt::format("flow {} did not appear within {} ms", flowId, timeout.count())};
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{10});
        }
    }
}
