// Turns readers' touches of a discrete flow's `access` file into runtime.lastReadTime (docs/flow-behaviour.md,
// "Domain watcher"): one inotify watch per flow this instance writes, served by one thread on epoll (inotify + an
// eventfd to stop).
#pragma once

#include "common/FlowLayout.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace mxl
{
    class DomainWatcher
    {
    public:
        explicit DomainWatcher(std::filesystem::path const& domain);
        ~DomainWatcher();

        DomainWatcher(DomainWatcher const&) = delete;
        DomainWatcher& operator=(DomainWatcher const&) = delete;

        // `data` is the writer's read-write mapping, valid until removeWriter. Throws when the access file is missing.
        void addWriter(void const* writer, std::filesystem::path const& flowDirectory, layout::FlowData& data);

        // Unknown writers are ignored.
        void removeWriter(void const* writer) noexcept;

        [[nodiscard]] std::size_t writerCount() const;

        // Ends the thread; touches are no longer turned into read times afterwards.
        void stop() noexcept;

    private:
        struct Record
        {
            int watch;
            layout::FlowData* data;
            std::string flowDirectory;
        };

        void run() noexcept;
        void handleEvents() noexcept;

        int _inotifyFd = -1;
        int _epollFd = -1;
        int _stopFd = -1;
        mutable std::mutex _mutex;
        // Writers of one flow share the watch descriptor inotify returns for its access file.
        std::map<void const*, Record> _writers;
        std::thread _thread;
    };
}
