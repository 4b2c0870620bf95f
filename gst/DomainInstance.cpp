#include "DomainInstance.hpp"

#include "ElementFailure.hpp"

#include <client/ClientError.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

namespace mxl::gst
{
    namespace
    {
        // The domain, once it is a folder.
        std::string const& checkedFolder(std::string const& domain)
        {
            if (domain.empty())
            {
                throw settingsFailure("domain is not set: set the domain property to a domain folder on tmpfs, e.g. /dev/shm/mxl");
            }
            std::error_code error;
            auto const status = std::filesystem::status(domain, error);
            if (status.type() == std::filesystem::file_type::not_found)
            {
                throw notFoundFailure(
                    fmt::format("domain \"{}\" does not exist: create the folder (on tmpfs, e.g. /dev/shm/mxl) first", domain));
            }
            if (error)
            {
                throw settingsFailure(fmt::format("domain \"{}\" cannot be examined: {}", domain, error.message()));
            }
            if (status.type() != std::filesystem::file_type::directory)
            {
                throw settingsFailure(fmt::format("domain \"{}\" is not a folder", domain));
            }
            return domain;
        }

        client::Instance openInstance(std::string const& domain)
        {
            try
            {
                return client::Instance{checkedFolder(domain)};
            }
            catch (client::ClientError const&)
            {
                throw settingsFailure(fmt::format("domain \"{}\" cannot be opened by libmxl (its log line says why)", domain));
            }
        }
    }

    DomainInstance::DomainInstance(std::string const& domain)
        : _domain{domain}
        , _instance{openInstance(domain)}
    {
    }
}
