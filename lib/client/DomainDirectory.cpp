#include "DomainDirectory.hpp"

#include "ClientError.hpp"
#include "FlowId.hpp"

#include <common/FlowPaths.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

namespace mxl::client
{
    void requireDomainDirectory(std::filesystem::path const& domain)
    {
        std::error_code error;
        if (!std::filesystem::exists(domain, error))
        {
            throw ClientError{
                ErrorKind::DomainUnavailable,
                fmt::format("domain '{}' does not exist (expected an existing directory, e.g. /dev/shm/mxl)", domain.string())};
        }
        if (!std::filesystem::is_directory(domain, error))
        {
            throw ClientError{ErrorKind::DomainUnavailable, fmt::format("domain '{}' is not a directory", domain.string())};
        }
    }

    std::vector<std::string> listFlowIds(std::filesystem::path const& domain)
    {
        std::error_code error;
        std::filesystem::directory_iterator entries{domain, error};
        if (error)
        {
            throw ClientError{ErrorKind::DomainUnavailable, fmt::format("cannot read domain '{}': {}", domain.string(), error.message())};
        }
        std::vector<std::string> ids;
        for (auto const& entry : entries)
        {
            auto const name = entry.path().filename().string();
            if (!name.ends_with(paths::flowDirectoryExtension) || !entry.is_directory(error))
            {
                continue;
            }
            if (auto id = canonicalFlowId(std::string_view{name}.substr(0, name.size() - paths::flowDirectoryExtension.size())))
            {
                ids.push_back(*id);
            }
        }
        std::ranges::sort(ids);
        return ids;
    }

    void requireFlowDirectory(std::filesystem::path const& domain, std::string const& flowId)
    {
        std::error_code error;
        if (!std::filesystem::is_directory(paths::flowDirectory(domain, flowId), error))
        {
            throw ClientError{ErrorKind::FlowNotFound,
                              fmt::format("flow {} not found in domain '{}' (mxl-info -l lists its flows)", flowId, domain.string())};
        }
    }
}
