#include "Domain.hpp"

#include "RegularFile.hpp"
#include "SystemError.hpp"
#include "common/BoundedFile.hpp"
#include "common/FlowPaths.hpp"

#include <mxl/dataformat.h>

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace mxl
{
    namespace
    {
        // A creation that loses the race to a writer that is being released at the same moment retries; this bounds
        // how often before giving up.
        constexpr int maxCreateOrOpenAttempts = 100;
        constexpr auto lockedFlowRetryDelay = std::chrono::milliseconds{1};

        // Removes the temporary directory of a flow being created on every path except a successful publication.
        class TemporaryDirectory
        {
        public:
            explicit TemporaryDirectory(std::filesystem::path const& domain)
            {
                auto pattern = (domain / (std::string{paths::tempDirectoryPrefix} + "XXXXXXXXXXXXXXXX")).string();
                if (::mkdtemp(pattern.data()) == nullptr)
                {
                    failErrno(errno, "mkdtemp {} (creating a flow needs a writable domain)", pattern);
                }
                _path = pattern;
            }

            TemporaryDirectory(TemporaryDirectory const&) = delete;
            TemporaryDirectory& operator=(TemporaryDirectory const&) = delete;

            ~TemporaryDirectory()
            {
                if (!_published)
                {
                    std::error_code ignored;
                    std::filesystem::remove_all(_path, ignored);
                }
            }

            [[nodiscard]] std::filesystem::path const& path() const noexcept
            {
                return _path;
            }

            // Renames the directory to `target` unless that exists; false when another creator got there first.
            bool publishAs(std::filesystem::path const& target)
            {
                if (::renameat2(AT_FDCWD, _path.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0)
                {
                    _published = true;
                    return true;
                }
                if (errno == EEXIST || errno == ENOTEMPTY)
                {
                    return false;
                }
                failErrno(errno, "renameat2 {} to {}", _path.string(), target.string());
            }

        private:
            std::filesystem::path _path;
            bool _published = false;
        };

        void writeNewFile(std::filesystem::path const& path, std::string_view text)
        {
            auto const fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0664);
            if (fd < 0)
            {
                failErrno(errno, "create {}", path.string());
            }
            auto remaining = text;
            while (!remaining.empty())
            {
                auto const written = ::write(fd, remaining.data(), remaining.size());
                if (written < 0 && errno == EINTR)
                {
                    continue;
                }
                if (written < 0)
                {
                    auto const error = errno;
                    ::close(fd);
                    failErrno(error, "write {}", path.string());
                }
                remaining.remove_prefix(static_cast<std::size_t>(written));
            }
            ::close(fd);
        }

        char const* kindName(bool discrete) noexcept
        {
            return discrete ? "discrete (video/data)" : "continuous (audio)";
        }

        std::string payloadLocationName(mxlCommonFlowConfigInfo const& common)
        {
            if (common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY)
            {
                return fmt::format("device memory (CUDA device {})", common.deviceIndex);
            }
            return "host memory";
        }

        // A writer that asked for device payloads must not be handed host pointers (nor the reverse): where its
        // payloads are decides how it fills them. The device is compared by the index the writer asked for: a second
        // writer names the GPU as the first did.
        void checkSamePayloadLocation(std::string_view flowId, mxlCommonFlowConfigInfo const& existing,
                                      mxlCommonFlowConfigInfo const& asked)
        {
            auto const onDevice = [](mxlCommonFlowConfigInfo const& common)
            { return common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY; };
            if (onDevice(existing) != onDevice(asked) || (onDevice(asked) && existing.deviceIndex != asked.deviceIndex))
            {
                fail(MXL_ERR_UNKNOWN, "flow {} exists with its payloads in {}, but this writer asks for {}", flowId,
                     payloadLocationName(existing), payloadLocationName(asked));
            }
        }

        // The inode now at `path` is the one `fd` refers to: false when the file was deleted or replaced meanwhile.
        bool stillLinked(std::filesystem::path const& path, int fd) noexcept
        {
            struct stat atPath
            {
            };
            struct stat opened
            {
            };
            return ::stat(path.c_str(), &atPath) == 0 && ::fstat(fd, &opened) == 0 && atPath.st_ino == opened.st_ino &&
                   atPath.st_dev == opened.st_dev;
        }

        // Opens a data file just to probe its lock; none when it cannot be opened, or is not a flow's file (which garbage
        // collection leaves alone: it removes flows, not what others put in the domain).
        UniqueFd openForLockProbe(std::filesystem::path const& dataPath) noexcept
        {
            try
            {
                // O_NOATIME keeps GC from looking like a reader; it is refused (EPERM) for files of other users.
                auto opened = openRegularFile(dataPath, O_RDONLY | O_CLOEXEC | O_NOATIME);
                if (opened.fd.get() < 0 && errno == EPERM)
                {
                    return std::move(openRegularFile(dataPath, O_RDONLY | O_CLOEXEC).fd);
                }
                return std::move(opened.fd);
            }
            catch (std::exception const& e)
            {
                log::warn("garbage collection leaves {} alone: {}", dataPath.parent_path().string(), e.what());
                return UniqueFd{-1};
            }
        }
    }

    Domain::Domain(std::filesystem::path const& path)
    {
        std::error_code error;
        if (!std::filesystem::is_directory(path, error))
        {
            fail(MXL_ERR_FLOW_NOT_FOUND, "domain {} is not an existing directory", path.string());
        }
        _path = std::filesystem::canonical(path);
    }

    std::filesystem::path Domain::flowDirectory(std::string_view canonicalId) const
    {
        return paths::flowDirectory(_path, canonicalId);
    }

    Domain::CreatedOrOpened Domain::createOrOpenFlow(FlowDefinition const& definition, std::string_view flowDefinitionText,
                                                     mxlFlowConfigInfo const& config)
    {
        auto const wantDiscrete = mxlIsDiscreteDataFormat(definition.format) != 0;
        for (int attempt = 0; attempt < maxCreateOrOpenAttempts; ++attempt)
        {
            if (!std::filesystem::exists(flowDirectory(definition.idString)))
            {
                if (auto files = tryPublishNewFlow(definition, flowDefinitionText, config))
                {
                    return {std::move(*files), true};
                }
            }
            if (auto files = tryOpenExistingFlow(definition.idString))
            {
                if (files->isDiscrete() != wantDiscrete)
                {
                    fail(MXL_ERR_UNKNOWN, "flow {} exists as a {} flow, but the definition describes a {} flow", definition.idString,
                         kindName(files->isDiscrete()), kindName(wantDiscrete));
                }
                checkSamePayloadLocation(definition.idString, files->data().info.config.common, config.common);
                return {std::move(*files), false};
            }
        }
        fail(MXL_ERR_UNKNOWN, "flow {} could neither be created nor opened after {} attempts (it kept being deleted)", definition.idString,
             maxCreateOrOpenAttempts);
    }

    std::optional<FlowFiles> Domain::tryPublishNewFlow(FlowDefinition const& definition, std::string_view flowDefinitionText,
                                                       mxlFlowConfigInfo const& config) const
    {
        TemporaryDirectory temporary{_path};
        writeNewFile(paths::flowDefinitionFile(temporary.path()), flowDefinitionText);
        if (mxlIsDiscreteDataFormat(definition.format) != 0)
        {
            writeNewFile(paths::accessFile(temporary.path()), {});
        }
        auto files = FlowFiles::create(temporary.path(), config, definition.grainSize, definition.totalSlices, definition.sampleWordBytes);
        // mkdtemp made the directory private (0700); readers of other users need to enter it.
        std::filesystem::permissions(temporary.path(),
                                     std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
                                         std::filesystem::perms::others_read | std::filesystem::perms::others_exec,
                                     std::filesystem::perm_options::add);
        if (!temporary.publishAs(flowDirectory(definition.idString)))
        {
            return std::nullopt;
        }
        return files;
    }

    std::optional<FlowFiles> Domain::tryOpenExistingFlow(std::string_view canonicalId) const
    {
        auto const directory = flowDirectory(canonicalId);
        try
        {
            auto files = FlowFiles::open(directory, MappedFile::Access::ReadWrite);
            // A last writer or GC may have deleted the flow between our open and our lock: we would hold a dead flow.
            if (!stillLinked(paths::dataFile(directory), files.dataFile().fd()))
            {
                return std::nullopt;
            }
            return files;
        }
        catch (Error const& e)
        {
            // FLOW_NOT_FOUND: deleted since we looked. CONFLICT: someone holds it exclusively while deleting it.
            if (e.status() == MXL_ERR_FLOW_NOT_FOUND)
            {
                return std::nullopt;
            }
            if (e.status() == MXL_ERR_CONFLICT)
            {
                std::this_thread::sleep_for(lockedFlowRetryDelay);
                return std::nullopt;
            }
            throw;
        }
    }

    FlowFiles Domain::openFlow(std::string_view canonicalId, MappedFile::Access access) const
    {
        return FlowFiles::open(flowDirectory(canonicalId), access);
    }

    std::vector<std::string> Domain::listFlows() const
    {
        std::vector<std::string> ids;
        for (auto const& entry : std::filesystem::directory_iterator{_path})
        {
            auto const& path = entry.path();
            if (path.extension() != paths::flowDirectoryExtension || !entry.is_directory())
            {
                continue;
            }
            if (auto id = canonicalUuid(path.stem().string()); id && *id == path.stem().string())
            {
                ids.push_back(std::move(*id));
            }
        }
        return ids;
    }

    bool Domain::deleteFlow(std::string_view canonicalId) const noexcept
    {
        std::error_code error;
        auto const removed = std::filesystem::remove_all(flowDirectory(canonicalId), error);
        return !error && removed != static_cast<std::uintmax_t>(-1) && removed > 0;
    }

    std::size_t Domain::garbageCollect() const noexcept
    {
        std::size_t removed = 0;
        try
        {
            for (auto const& id : listFlows())
            {
                auto const directory = flowDirectory(id);
                auto const fd = openForLockProbe(paths::dataFile(directory));
                if (fd.get() < 0)
                {
                    continue;
                }
                // Removing while still holding the exclusive lock keeps a writer from opening the flow half-deleted.
                if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0)
                {
                    std::error_code error;
                    std::filesystem::remove_all(directory, error);
                    if (error)
                    {
                        log::warn("garbage collection could not remove {}: {}", directory.string(), error.message());
                    }
                    else
                    {
                        ++removed;
                    }
                }
            }
        }
        catch (std::exception const& e)
        {
            log::warn("garbage collection of domain {} stopped: {}", _path.string(), e.what());
        }
        log::debug("garbage collection removed {} inactive flows from {}", removed, _path.string());
        return removed;
    }

    bool Domain::isFlowActive(std::string_view canonicalId) const
    {
        auto const dataPath = paths::dataFile(flowDirectory(canonicalId));
        auto const [fd, status] = openRegularFile(dataPath, O_RDONLY | O_CLOEXEC);
        if (fd.get() < 0)
        {
            fail(MXL_ERR_FLOW_NOT_FOUND, "flow {} has no readable data file {}: {}", canonicalId, dataPath.string(), std::strerror(errno));
        }
        return ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0;
    }

    std::string Domain::readFlowDefinition(std::string_view canonicalId) const
    {
        auto const path = paths::flowDefinitionFile(flowDirectory(canonicalId));
        try
        {
            return readBoundedFile(path);
        }
        catch (FileReadError const& error)
        {
            fail(MXL_ERR_FLOW_NOT_FOUND, "flow {} has no readable definition: {}", canonicalId, error.what());
        }
    }
}
