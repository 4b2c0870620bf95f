#include "fabrics/transport/HostLog.hpp"

#include "common/Log.hpp"

#include <atomic>
#include <cstddef>
#include <string_view>

namespace mxl::fabrics
{
    namespace
    {
        static_assert(static_cast<std::uint32_t>(log::Level::Trace) == MXL_FABRICS_BACKEND_LOG_TRACE);
        static_assert(static_cast<std::uint32_t>(log::Level::Critical) == MXL_FABRICS_BACKEND_LOG_CRITICAL);

        using HostCallback = void (*)(std::uint32_t level, char const* message, std::size_t length);

        std::atomic<HostCallback> hostCallback{nullptr};

        void toHost(log::Level level, std::string_view message) noexcept
        {
            hostCallback.load()(static_cast<std::uint32_t>(level), message.data(), message.size());
        }
    }

    void writeBackendLine(std::uint32_t level, char const* message, std::size_t length)
    {
        auto const known = level <= MXL_FABRICS_BACKEND_LOG_CRITICAL ? static_cast<log::Level>(level) : log::Level::Error;
        log::write(known, {message, length});
    }

    void logThroughHost(mxlFabricsBackendHost const* host) noexcept
    {
        if (host == nullptr || host->structSize < offsetof(mxlFabricsBackendHost, log) + sizeof(host->log) || host->log == nullptr)
        {
            return;
        }
        hostCallback.store(host->log);
        log::redirect(&toHost);
    }
}
