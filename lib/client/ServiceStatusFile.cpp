#include "ServiceStatusFile.hpp"

#include <common/BoundedFile.hpp>

#include <common/BoundedJson.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace mxl::client
{
    namespace
    {
        constexpr char const* directoryName = ".mxl-services";
        constexpr int formatVersion = 1;

        nlohmann::json optionalMs(std::optional<double> seconds)
        {
            return seconds ? nlohmann::json(*seconds * 1e3) : nlohmann::json(nullptr);
        }

        std::optional<double> optionalSeconds(nlohmann::json const& object, char const* key)
        {
            auto const& value = object.at(key);
            if (value.is_null())
            {
                return std::nullopt;
            }
            return value.get<double>() / 1e3;
        }

        // Epochs are nonces over the whole 64-bit range: a decimal string as in the ticket, since JSON readers that
        // hold numbers as doubles (jq, JavaScript) would round them. A number is accepted too.
        std::uint64_t epochOf(nlohmann::json const& object)
        {
            auto const found = object.find("epoch");
            if (found == object.end() || found->is_number_unsigned())
            {
                return found == object.end() ? 0 : found->get<std::uint64_t>();
            }
            auto const text = found->get<std::string>();
            std::size_t used = 0;
            auto const value = text.empty() || text.front() == '-' ? 0 : std::stoull(text, &used);
            if (used != text.size())
            {
                throw std::runtime_error{fmt::format("epoch '{}' is not a decimal number", text)};
            }
            return value;
        }

        // Error texts are shown on one line.
        std::string oneLine(std::string text)
        {
            std::ranges::replace(text, '\n', ' ');
            std::ranges::replace(text, '\r', ' ');
            return text;
        }
    }

    std::filesystem::path serviceStatusDirectory(std::filesystem::path const& domain)
    {
        return domain / directoryName;
    }

    std::filesystem::path serviceStatusPath(std::filesystem::path const& domain, std::string_view role, std::string_view flowId, pid_t pid)
    {
        return serviceStatusDirectory(domain) / fmt::format("{}-{}-{}.json", role, flowId, pid);
    }

    std::string serviceStatusJson(ServiceStatus const& status)
    {
        auto targets = nlohmann::json::array();
        for (auto const& target : status.targets)
        {
            targets.push_back(
                {{"epoch", std::to_string(target.epoch)}, {"state", target.state}, {"reason", target.reason}, {"for_ms", target.forMs}});
        }
        nlohmann::json const json{
            {"format", formatVersion},
            {"role", status.role},
            {"flow_id", status.flowId},
            {"pid", status.pid},
            {"config", status.config},
            {"state", status.state},
            {"epoch", std::to_string(status.epoch)},
            {"transport", status.transport},
            {"payload_location", status.payloadLocation},
            {"device_index", status.deviceIndex ? nlohmann::json(*status.deviceIndex) : nlohmann::json(nullptr)},
            {"updated_at", status.updatedAtTaiNs},
            {"status_interval_ms", status.statusIntervalMs},
            {"grains", status.counters.units},
            {"bytes", status.counters.bytes},
            {"late", status.counters.late},
            {"lost", status.counters.lost},
            {"reconnects", status.counters.reconnects},
            {"stalls", status.counters.stalls},
            {"concurrent_initiators", status.concurrentInitiators},
            {"grain_rate", status.grainsPerSecond},
            {"byte_rate", status.bytesPerSecond},
            {"latency_ms",
             {{"p50", optionalMs(status.latencyP50Seconds)},
              {"p90", optionalMs(status.latencyP90Seconds)},
              {"p99", optionalMs(status.latencyP99Seconds)}}},
            {"targets", targets},
        };
        return json.dump(2) + '\n';
    }

    ServiceStatus parseServiceStatus(std::string_view text)
    {
        auto const json = mxl::parseJsonOrDiscarded(text);
        if (json.is_discarded())
        {
            throw std::runtime_error{"not valid JSON"};
        }
        if (!json.is_object())
        {
            throw std::runtime_error{"not a JSON object"};
        }
        try
        {
            ServiceStatus status;
            status.role = json.at("role").get<std::string>();
            status.flowId = json.at("flow_id").get<std::string>();
            status.pid = json.at("pid").get<pid_t>();
            status.config = json.value("config", std::string{});
            status.state = json.at("state").get<std::string>();
            status.epoch = epochOf(json);
            status.transport = json.value("transport", std::string{});
            status.payloadLocation = json.value("payload_location", std::string{});
            if (auto const device = json.find("device_index"); device != json.end() && !device->is_null())
            {
                status.deviceIndex = device->get<std::int32_t>();
            }
            status.updatedAtTaiNs = json.at("updated_at").get<std::uint64_t>();
            status.statusIntervalMs = std::max<std::uint64_t>(json.value("status_interval_ms", std::uint64_t{1000}), 1);
            status.counters.units = json.at("grains").get<std::uint64_t>();
            status.counters.bytes = json.at("bytes").get<std::uint64_t>();
            status.counters.late = json.at("late").get<std::uint64_t>();
            status.counters.lost = json.at("lost").get<std::uint64_t>();
            status.counters.reconnects = json.at("reconnects").get<std::uint64_t>();
            status.counters.stalls = json.at("stalls").get<std::uint64_t>();
            status.concurrentInitiators = json.value("concurrent_initiators", std::uint64_t{0});
            status.grainsPerSecond = json.at("grain_rate").get<double>();
            status.bytesPerSecond = json.at("byte_rate").get<double>();
            auto const& latency = json.at("latency_ms");
            status.latencyP50Seconds = optionalSeconds(latency, "p50");
            status.latencyP90Seconds = optionalSeconds(latency, "p90");
            status.latencyP99Seconds = optionalSeconds(latency, "p99");
            if (auto const targets = json.find("targets"); targets != json.end())
            {
                for (auto const& target : *targets)
                {
                    status.targets.push_back(ServiceTargetStatus{epochOf(target), target.at("state").get<std::string>(),
                                                                 target.value("reason", std::string{}),
                                                                 target.value("for_ms", std::uint64_t{0})});
                }
            }
            if (status.role.empty() || status.flowId.empty() || status.pid <= 0)
            {
                throw std::runtime_error{"empty role or flow_id, or no pid"};
            }
            return status;
        }
        catch (nlohmann::json::exception const& error)
        {
            throw std::runtime_error{oneLine(error.what())};
        }
        catch (std::logic_error const&)
        {
            // std::stoull's invalid_argument and out_of_range.
            throw std::runtime_error{"an epoch is not a decimal number"};
        }
    }

    void writeServiceStatusFile(std::filesystem::path const& domain, ServiceStatus const& status)
    {
        auto const directory = serviceStatusDirectory(domain);
        if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST)
        {
            throw std::runtime_error{fmt::format("cannot create '{}': {}", directory.string(), std::strerror(errno))};
        }
        // A domain may be shared: a link planted in it must not lead the write elsewhere.
        struct stat found
        {
        };
        if (::lstat(directory.c_str(), &found) != 0 || !S_ISDIR(found.st_mode))
        {
            throw std::runtime_error{
                fmt::format("'{}' is not a directory (a link, or a file): no status file is written there", directory.string())};
        }
        auto const path = serviceStatusPath(domain, status.role, status.flowId, status.pid);
        // Not `*.json`: readers never pick up a half-written file.
        auto const temporary = directory / fmt::format(".{}.{}.tmp", path.filename().string(), ::getpid());
        auto const fail = [&](char const* step)
        {
            auto const reason = std::strerror(errno);
            ::unlink(temporary.c_str());
            throw std::runtime_error{fmt::format("cannot write '{}': {} failed: {}", path.string(), step, reason)};
        };
        constexpr int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
        auto fd = ::open(temporary.c_str(), flags, 0644);
        if (fd < 0 && errno == EEXIST)
        {
            // Left by an earlier process of this pid, or planted: the name goes (a link, not what it points to).
            ::unlink(temporary.c_str());
            fd = ::open(temporary.c_str(), flags, 0644);
        }
        if (fd < 0)
        {
            fail("open");
        }
        auto const text = serviceStatusJson(status);
        // The umask must not hide the figures from other users.
        bool const complete = ::fchmod(fd, 0644) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
        ::close(fd);
        if (!complete)
        {
            fail("write");
        }
        if (::rename(temporary.c_str(), path.c_str()) != 0)
        {
            fail("rename");
        }
    }

    void removeServiceStatusFile(std::filesystem::path const& domain, std::string_view role, std::string_view flowId, pid_t pid) noexcept
    {
        try
        {
            std::error_code ignored;
            std::filesystem::remove(serviceStatusPath(domain, role, flowId, pid), ignored);
        }
        catch (...)
        {
        }
    }

    std::vector<ServiceStatusEntry> readServiceStatusFiles(std::filesystem::path const& domain)
    {
        std::vector<ServiceStatusEntry> entries;
        std::error_code error;
        std::filesystem::directory_iterator files{serviceStatusDirectory(domain), error};
        if (error)
        {
            return entries;
        }
        for (auto const& file : files)
        {
            auto const& path = file.path();
            if (path.extension() != ".json" || path.filename().string().starts_with("."))
            {
                continue;
            }
            std::string text;
            try
            {
                text = readBoundedFile(path);
            }
            catch (FileReadError const&)
            {
                // Removed since the directory was read, or no status file of ours.
                continue;
            }
            try
            {
                entries.push_back(ServiceStatusEntry{path, parseServiceStatus(text)});
            }
            catch (std::runtime_error const& problem)
            {
                entries.push_back(ServiceStatusEntry{path, std::string{problem.what()}});
            }
        }
        std::ranges::sort(entries, {}, &ServiceStatusEntry::path);
        return entries;
    }

    bool processExists(pid_t pid) noexcept
    {
        return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
    }

    bool processGone(ServiceStatus const& status) noexcept
    {
        return !processExists(status.pid);
    }

    namespace
    {
        // The readable files of `status`'s role and flow that another process wrote, with what they hold.
        std::vector<std::pair<std::filesystem::path, ServiceStatus>> othersOfRoleAndFlow(std::filesystem::path const& domain,
                                                                                         ServiceStatus const& status)
        {
            std::vector<std::pair<std::filesystem::path, ServiceStatus>> others;
            for (auto& entry : readServiceStatusFiles(domain))
            {
                auto* other = std::get_if<ServiceStatus>(&entry.content);
                if (other != nullptr && other->role == status.role && other->flowId == status.flowId && other->pid != status.pid)
                {
                    others.emplace_back(std::move(entry.path), std::move(*other));
                }
            }
            return others;
        }
    }

    std::vector<ServiceStatus> removeLeftServiceStatusFiles(std::filesystem::path const& domain, ServiceStatus const& status)
    {
        std::vector<ServiceStatus> removed;
        for (auto& [path, left] : othersOfRoleAndFlow(domain, status))
        {
            std::error_code error;
            if (left.config == status.config && processGone(left) && std::filesystem::remove(path, error))
            {
                removed.push_back(std::move(left));
            }
        }
        return removed;
    }

    std::vector<ServiceStatus> otherRunningServices(std::filesystem::path const& domain, ServiceStatus const& status)
    {
        std::vector<ServiceStatus> running;
        for (auto& [path, other] : othersOfRoleAndFlow(domain, status))
        {
            if (!processGone(other))
            {
                running.push_back(std::move(other));
            }
        }
        return running;
    }

    std::optional<std::string> serviceStaleReason(ServiceStatus const& status, std::uint64_t nowTai)
    {
        if (processGone(status))
        {
            return fmt::format("pid {} is gone", status.pid);
        }
        auto const ageNs = nowTai > status.updatedAtTaiNs ? nowTai - status.updatedAtTaiNs : 0;
        if (ageNs > 3 * status.statusIntervalMs * 1'000'000)
        {
            return fmt::format("not updated for {}, status interval {} ms", formatStatusAge(status, nowTai), status.statusIntervalMs);
        }
        return std::nullopt;
    }

    std::string formatStatusAge(ServiceStatus const& status, std::uint64_t nowTai)
    {
        auto const seconds = nowTai > status.updatedAtTaiNs ? static_cast<double>(nowTai - status.updatedAtTaiNs) / 1e9 : 0.0;
        if (seconds < 10)
        {
            return fmt::format("{:.1f} s", seconds);
        }
        if (seconds < 600)
        {
            return fmt::format("{:.0f} s", seconds);
        }
        return fmt::format("{:.0f} min", seconds / 60);
    }
}
