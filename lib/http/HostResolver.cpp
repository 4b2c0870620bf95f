#include "HostResolver.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace mxl
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        // What the lookup's thread and the callers waiting for it share; the addresses live as long as a caller holds them.
        struct Lookup
        {
            std::mutex mutex;
            std::condition_variable finished;
            bool done = false;
            int error = 0;
            addrinfo* addresses = nullptr;

            ~Lookup()
            {
                if (addresses != nullptr)
                {
                    ::freeaddrinfo(addresses);
                }
            }
        };

        // Distinct hosts and ports looked up at once, beyond which a new one is refused: each holds a thread for as long
        // as the resolver waits, and no process of these tools asks for more than a few names.
        constexpr std::size_t maxLookupsRunning = 16;

        // The lookups under way, by host and port: a lookup leaves it before its callers hear the answer, so a caller
        // that returned has never left one here (nor in a process forked after it).
        std::mutex runningMutex;
        std::map<std::string, std::shared_ptr<Lookup>> running;

        addrinfo streamHints(int flags) noexcept
        {
            addrinfo hints{};
            hints.ai_socktype = SOCK_STREAM;
            hints.ai_flags = flags;
            return hints;
        }

        void lookUp(std::shared_ptr<Lookup> const& lookup, std::string const& key, std::string const& host, std::string const& port)
        {
            auto const hints = streamHints(0);
            addrinfo* addresses = nullptr;
            auto const error = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &addresses);
            {
                std::lock_guard lock{runningMutex};
                if (auto const found = running.find(key); found != running.end() && found->second == lookup)
                {
                    running.erase(found);
                }
            }
            {
                std::lock_guard lock{lookup->mutex};
                lookup->error = error;
                lookup->addresses = error == 0 ? addresses : nullptr;
                lookup->done = true;
            }
            lookup->finished.notify_all();
        }

        // The lookup of `host` and `port` under way, or a new one; why not where none can be started.
        std::variant<std::shared_ptr<Lookup>, std::string> joinOrStart(std::string const& host, std::string const& port)
        {
            auto key = host + '\n' + port;
            std::lock_guard lock{runningMutex};
            if (auto const found = running.find(key); found != running.end())
            {
                return found->second;
            }
            if (running.size() >= maxLookupsRunning)
            {
                return fmt::format("cannot resolve '{}': lookups of {} other names still wait for the name service", host, running.size());
            }
            try
            {
                auto lookup = std::make_shared<Lookup>();
                running.emplace(key, lookup);
                std::thread{[lookup, key, host, port] { lookUp(lookup, key, host, port); }}.detach();
                return lookup;
            }
            catch (std::exception const& e)
            {
                running.erase(key);
                return fmt::format("cannot resolve '{}': the lookup could not be started: {}", host, e.what());
            }
        }
    }

    std::variant<AddressList, std::string> resolveHost(std::string const& host, std::string const& port, Clock::time_point deadline)
    {
        auto const numeric = streamHints(AI_NUMERICHOST);
        addrinfo* addresses = nullptr;
        if (::getaddrinfo(host.c_str(), port.c_str(), &numeric, &addresses) == 0)
        {
            return AddressList{addresses, [](addrinfo const* list) { ::freeaddrinfo(const_cast<addrinfo*>(list)); }};
        }
        auto joined = joinOrStart(host, port);
        if (auto const* problem = std::get_if<std::string>(&joined))
        {
            return *problem;
        }
        auto const lookup = std::get<std::shared_ptr<Lookup>>(std::move(joined));
        std::unique_lock lock{lookup->mutex};
        if (!lookup->finished.wait_until(lock, deadline, [&] { return lookup->done; }))
        {
            return fmt::format("cannot resolve '{}': the name service gave no answer before the request's deadline", host);
        }
        if (lookup->error != 0)
        {
            return fmt::format("cannot resolve '{}': {}", host, ::gai_strerror(lookup->error));
        }
        return AddressList{lookup, lookup->addresses};
    }
}
