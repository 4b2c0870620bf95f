#include "DomainWatcher.hpp"

#include "common/FlowPaths.hpp"
#include "SystemError.hpp"
#include "Timing.hpp"
#include "common/SharedAtomics.hpp"

#include "common/Log.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace mxl
{
    namespace
    {
        // The thread re-checks for a stop request at least this often even if the eventfd wake-up were lost.
        constexpr int epollTimeoutMs = 250;
        constexpr std::uint32_t watchedEvents = IN_ACCESS | IN_ATTRIB;

        void closeIfOpen(int& fd) noexcept
        {
            if (fd >= 0)
            {
                ::close(fd);
                fd = -1;
            }
        }
    }

    DomainWatcher::DomainWatcher(std::filesystem::path const& domain)
    {
        std::error_code error;
        if (!std::filesystem::is_directory(domain, error))
        {
            fail(MXL_ERR_FLOW_NOT_FOUND, "domain {} is not an existing directory", domain.string());
        }
        _inotifyFd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        _epollFd = ::epoll_create1(EPOLL_CLOEXEC);
        _stopFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (_inotifyFd < 0 || _epollFd < 0 || _stopFd < 0)
        {
            auto const errorNumber = errno;
            closeIfOpen(_inotifyFd);
            closeIfOpen(_epollFd);
            closeIfOpen(_stopFd);
            failErrno(errorNumber, "creating the watcher of domain {}", domain.string());
        }
        for (auto const fd : {_inotifyFd, _stopFd})
        {
            epoll_event event{};
            event.events = EPOLLIN;
            event.data.fd = fd;
            ::epoll_ctl(_epollFd, EPOLL_CTL_ADD, fd, &event);
        }
        _thread = std::thread{[this] { run(); }};
    }

    DomainWatcher::~DomainWatcher()
    {
        stop();
        std::lock_guard lock{_mutex};
        // Closing the inotify descriptor drops every watch at once.
        _writers.clear();
        closeIfOpen(_inotifyFd);
        closeIfOpen(_epollFd);
        closeIfOpen(_stopFd);
    }

    void DomainWatcher::addWriter(void const* writer, std::filesystem::path const& flowDirectory, layout::FlowData& data)
    {
        auto const accessPath = paths::accessFile(flowDirectory);
        auto const watch = ::inotify_add_watch(_inotifyFd, accessPath.c_str(), watchedEvents);
        if (watch < 0)
        {
            failErrno(errno, "inotify_add_watch {}", accessPath.string());
        }
        std::lock_guard lock{_mutex};
        _writers[writer] = Record{watch, &data, flowDirectory.string()};
    }

    void DomainWatcher::removeWriter(void const* writer) noexcept
    {
        std::lock_guard lock{_mutex};
        auto const found = _writers.find(writer);
        if (found == _writers.end())
        {
            return;
        }
        auto const watch = found->second.watch;
        auto const directory = found->second.flowDirectory;
        _writers.erase(found);
        if (watch < 0)
        {
            return;
        }
        for (auto const& [other, record] : _writers)
        {
            if (record.watch == watch)
            {
                return;
            }
        }
        // EINVAL: the kernel already dropped the watch because the file was deleted (IN_IGNORED), which is normal
        // when another process removed the flow first.
        if (::inotify_rm_watch(_inotifyFd, watch) != 0 && errno != EINVAL)
        {
            log::warn("could not remove the inotify watch of {}: {}", directory, std::strerror(errno));
        }
    }

    std::size_t DomainWatcher::writerCount() const
    {
        std::lock_guard lock{_mutex};
        return _writers.size();
    }

    void DomainWatcher::stop() noexcept
    {
        if (!_thread.joinable())
        {
            return;
        }
        std::uint64_t const one = 1;
        if (::write(_stopFd, &one, sizeof one) < 0)
        {
            log::warn("could not signal the domain watcher to stop: {}", std::strerror(errno));
        }
        _thread.join();
    }

    void DomainWatcher::run() noexcept
    {
        while (true)
        {
            std::array<epoll_event, 2> events{};
            auto const ready = ::epoll_wait(_epollFd, events.data(), static_cast<int>(events.size()), epollTimeoutMs);
            for (int i = 0; i < ready; ++i)
            {
                if (events[static_cast<std::size_t>(i)].data.fd == _stopFd)
                {
                    return;
                }
                handleEvents();
            }
        }
    }

    void DomainWatcher::handleEvents() noexcept
    {
        alignas(inotify_event) std::array<char, 4096> buffer;
        while (true)
        {
            auto const length = ::read(_inotifyFd, buffer.data(), buffer.size());
            if (length <= 0)
            {
                return;
            }
            auto const nowNs = timing::taiNowNs();
            std::lock_guard lock{_mutex};
            for (auto offset = std::size_t{0}; offset < static_cast<std::size_t>(length);)
            {
                inotify_event event;
                std::memcpy(&event, buffer.data() + offset, sizeof event);
                offset += sizeof(inotify_event) + event.len;
                for (auto& [writer, record] : _writers)
                {
                    if (record.watch != event.wd)
                    {
                        continue;
                    }
                    if ((event.mask & IN_IGNORED) != 0)
                    {
                        // The access file is gone (its flow was deleted) and the kernel dropped the watch; its number
                        // may be handed out again, so it must never be removed in our name.
                        record.watch = -1;
                    }
                    else if ((event.mask & watchedEvents) != 0)
                    {
                        storeRelaxed(record.data->info.runtime.lastReadTime, nowNs);
                    }
                }
            }
        }
    }
}
