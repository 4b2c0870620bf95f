#include "fabrics/backends/ofi/ShmRegion.hpp"

#include "fabrics/backends/ofi/Endpoint.hpp"
#include "fabrics/ticket/TicketAddressFormat.hpp"

#include "common/Log.hpp"

#include <rdma/fabric.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string_view>
#include <utility>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::string_view scheme{"fi_shm://"};
        std::filesystem::path const shmDirectory{"/dev/shm"};

        std::optional<std::string> shmName(std::uint8_t const* bytes, std::size_t size)
        {
            auto const end = std::find(bytes, bytes + size, std::uint8_t{0});
            std::string_view const address{reinterpret_cast<char const*>(bytes), static_cast<std::size_t>(end - bytes)};
            if (!address.starts_with(scheme) || address.size() == scheme.size() ||
                address.find('/', scheme.size()) != std::string_view::npos)
            {
                return std::nullopt;
            }
            return std::string{address.substr(scheme.size())};
        }

        // The provider names a region "<endpoint name>:<uid>:<endpoint number>".
        bool isRegionOf(std::string const& file, std::string const& name)
        {
            if (!file.starts_with(name + ':'))
            {
                return false;
            }
            auto const suffix = std::string_view{file}.substr(name.size() + 1);
            auto const colon = suffix.find(':');
            auto const digits = [](std::string_view text)
            { return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos; };
            return colon != std::string_view::npos && digits(suffix.substr(0, colon)) && digits(suffix.substr(colon + 1));
        }

        void removeUnheldRegions(std::string const& name)
        {
            std::error_code error;
            for (auto const& entry : std::filesystem::directory_iterator{shmDirectory, error})
            {
                auto const file = entry.path().filename().string();
                if (isRegionOf(file, name) && probeShmRegion(entry.path()) == ShmRegionState::Unheld)
                {
                    std::error_code ignored;
                    if (std::filesystem::remove(entry.path(), ignored))
                    {
                        log::warn("fabrics: removed {}, the shm region of an endpoint whose process ended without closing it",
                                  entry.path().string());
                    }
                }
            }
        }

        // "mxl-<role>-<pid>-<n>", the names this library gives initiators and unnamed targets: the pid tells whether the
        // process still runs (in this pid namespace; the hold covers the others).
        std::optional<pid_t> autoNamedOwner(std::string const& file)
        {
            for (std::string_view const prefix : {"mxl-target-", "mxl-initiator-"})
            {
                if (file.starts_with(prefix))
                {
                    auto const rest = std::string_view{file}.substr(prefix.size());
                    auto const dash = rest.find('-');
                    auto const pid = rest.substr(0, dash);
                    if (dash == std::string_view::npos || pid.empty() || pid.find_first_not_of("0123456789") != std::string_view::npos ||
                        pid.size() > 9)
                    {
                        return std::nullopt;
                    }
                    return static_cast<pid_t>(std::stol(std::string{pid}));
                }
            }
            return std::nullopt;
        }

        // Once per process: the regions that ended processes of ours left behind (a crash loop would otherwise fill tmpfs
        // 16 MiB at a time). Young files are spared: their endpoint may be about to take its hold.
        void removeEndedAutoNamedRegions()
        {
            constexpr auto minimumAge = std::chrono::seconds{10};
            std::error_code error;
            auto const now = std::filesystem::file_time_type::clock::now();
            for (auto const& entry : std::filesystem::directory_iterator{shmDirectory, error})
            {
                auto const file = entry.path().filename().string();
                auto const owner = autoNamedOwner(file);
                std::error_code ignored;
                if (!owner || std::filesystem::exists(std::filesystem::path{"/proc"} / std::to_string(*owner), ignored) ||
                    now - std::filesystem::last_write_time(entry.path(), ignored) < minimumAge ||
                    probeShmRegion(entry.path()) != ShmRegionState::Unheld)
                {
                    continue;
                }
                if (std::filesystem::remove(entry.path(), ignored))
                {
                    log::info("fabrics: removed {}, the shm region of ended process {}", entry.path().string(), *owner);
                }
            }
        }
    }

    std::optional<std::filesystem::path> shmRegionOfAddress(std::vector<std::uint8_t> const& address)
    {
        auto const name = shmName(address.data(), address.size());
        return name ? std::optional{shmDirectory / *name} : std::nullopt;
    }

    std::optional<std::filesystem::path> shmRegionOf(TargetInfo const& ticket)
    {
        if (ticket.provider != MXL_FABRICS_PROVIDER_SHM || ticket.addressFormat != static_cast<std::uint32_t>(TicketAddressFormat::Str))
        {
            return std::nullopt;
        }
        return shmRegionOfAddress(ticket.fabricAddress);
    }

    ShmRegionState probeShmRegion(std::filesystem::path const& region)
    {
        auto const fd = ::open(region.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
        {
            return errno == ENOENT ? ShmRegionState::Gone : ShmRegionState::Held;
        }
        // An exclusive lock is granted only when no endpoint holds its shared one; it is given back at once.
        auto const state = ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? ShmRegionState::Unheld : ShmRegionState::Held;
        ::close(fd);
        return state;
    }

    ShmRegionHold::ShmRegionHold(std::filesystem::path const& region)
        : _fd{::open(region.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)}
    {
        if (_fd < 0 || ::flock(_fd, LOCK_SH) != 0)
        {
            // Not fatal: the endpoint works; only its region would not be told from a dead one's.
            log::warn("fabrics: cannot hold the shm region {}: {}", region.string(), std::strerror(errno));
        }
    }

    ShmRegionHold::~ShmRegionHold()
    {
        if (_fd >= 0)
        {
            ::close(_fd);
        }
    }

    ShmRegionHold::ShmRegionHold(ShmRegionHold&& other) noexcept
        : _fd{std::exchange(other._fd, -1)}
    {
    }

    ShmRegionHold& ShmRegionHold::operator=(ShmRegionHold&& other) noexcept
    {
        if (this != &other)
        {
            if (_fd >= 0)
            {
                ::close(_fd);
            }
            _fd = std::exchange(other._fd, -1);
        }
        return *this;
    }

    std::optional<ShmRegionHold> enableEndpoint(Endpoint& endpoint, fi_info const& info, bool shm)
    {
        if (!shm)
        {
            endpoint.enable();
            return std::nullopt;
        }
        static std::once_flag sweep;
        std::call_once(sweep, removeEndedAutoNamedRegions);
        if (info.src_addr != nullptr)
        {
            if (auto const name = shmName(static_cast<std::uint8_t const*>(info.src_addr), info.src_addrlen))
            {
                removeUnheldRegions(*name);
            }
        }
        endpoint.enable();
        auto const region = shmRegionOfAddress(endpoint.name());
        return region ? std::optional<ShmRegionHold>{std::in_place, *region} : std::nullopt;
    }
}
