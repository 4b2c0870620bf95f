#include "PrivateDomain.hpp"

#include "ClientError.hpp"

#include <atomic>
#include <system_error>
#include <unistd.h>

namespace mxl::client
{
    namespace
    {
        std::filesystem::path uniquePath(std::filesystem::path const& domain)
        {
            static std::atomic<unsigned> created{0};
            return domain / fmt::format(".mxl-private-{}-{}", ::getpid(), ++created);
        }
    }

    PrivateDomain::PrivateDomain(std::filesystem::path const& domain)
        : _path{uniquePath(domain)}
    {
        std::error_code error;
        if (!std::filesystem::create_directory(_path, error))
        {
            runtimeFailure("cannot create the private domain '{}': {}", _path.string(),
                           error ? error.message() : std::string{"it exists already"});
        }
        auto const options = domain / "options.json";
        if (std::filesystem::exists(options, error) && !std::filesystem::copy_file(options, _path / "options.json", error))
        {
            auto const why = error.message();
            std::filesystem::remove_all(_path, error);
            runtimeFailure("cannot copy '{}' into the private domain '{}': {}", options.string(), _path.string(), why);
        }
    }

    PrivateDomain::~PrivateDomain()
    {
        std::error_code ignored;
        std::filesystem::remove_all(_path, ignored);
    }
}
