#include "HostResolver.hpp"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace mxl
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        // Lookups whose callers went on without them count until the resolver gives up; while a name server is silent,
        // a caller that asks every second would otherwise leave a new thread behind each time.
        constexpr int maxLookupsRunning = 16;
        std::atomic<int> lookupsRunning{0};

        // What the lookup's thread and its caller share: the caller takes the addresses, or leaves them to the thread to
        // free once it gave up waiting.
        struct Lookup
        {
            std::mutex mutex;
            std::condition_variable finished;
            bool done = false;
            bool abandoned = false;
            int error = 0;
            addrinfo* addresses = nullptr;
        };

        addrinfo streamHints(int flags) noexcept
        {
            addrinfo hints{};
            hints.ai_socktype = SOCK_STREAM;
            hints.ai_flags = flags;
            return hints;
        }

        void lookUp(std::shared_ptr<Lookup> const& lookup, std::string const& host, std::string const& port)
        {
            auto const hints = streamHints(0);
            addrinfo* addresses = nullptr;
            auto const error = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &addresses);
            {
                std::lock_guard lock{lookup->mutex};
                if (lookup->abandoned)
                {
                    if (error == 0)
                    {
                        ::freeaddrinfo(addresses);
                    }
                }
                else
                {
                    lookup->error = error;
                    lookup->addresses = error == 0 ? addresses : nullptr;
                }
                lookup->done = true;
            }
            lookup->finished.notify_one();
            lookupsRunning.fetch_sub(1);
        }
    }

    std::variant<AddressList, std::string> resolveHost(std::string const& host, std::string const& port, Clock::time_point deadline)
    {
        auto const numeric = streamHints(AI_NUMERICHOST);
        addrinfo* addresses = nullptr;
        if (::getaddrinfo(host.c_str(), port.c_str(), &numeric, &addresses) == 0)
        {
            return AddressList{addresses};
        }
        if (lookupsRunning.fetch_add(1) >= maxLookupsRunning)
        {
            lookupsRunning.fetch_sub(1);
            return fmt::format("cannot resolve '{}': {} earlier lookups still wait for the name service", host, maxLookupsRunning);
        }
        auto lookup = std::make_shared<Lookup>();
        try
        {
            std::thread{[lookup, host, port] { lookUp(lookup, host, port); }}.detach();
        }
        catch (std::system_error const& e)
        {
            lookupsRunning.fetch_sub(1);
            return fmt::format("cannot resolve '{}': no thread for the lookup: {}", host, e.what());
        }
        std::unique_lock lock{lookup->mutex};
        if (!lookup->finished.wait_until(lock, deadline, [&] { return lookup->done; }))
        {
            lookup->abandoned = true;
            return fmt::format("cannot resolve '{}': the name service gave no answer before the request's deadline", host);
        }
        if (lookup->error != 0)
        {
            return fmt::format("cannot resolve '{}': {}", host, ::gai_strerror(lookup->error));
        }
        return AddressList{std::exchange(lookup->addresses, nullptr)};
    }
}
