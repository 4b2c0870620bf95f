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

    PrivateDomain::PrivateDomain(std::filesystem::path const& domain, Options options)
        : _path{uniquePath(domain)}
    {
        std::error_code error;
        if (!std::filesystem::create_directory(_path, error))
        {
            runtimeFailure("cannot create the private domain '{}': {}", _path.string(),
                           error ? error.message() : std::string{"it exists already"});
        }
        auto const optionsFile = domain / "options.json";
        if (options == Options::Inherited && std::filesystem::exists(optionsFile, error) &&
            !std::filesystem::copy_file(optionsFile, _path / "options.json", error))
        {
            auto const why = error.message();
            std::filesystem::remove_all(_path, error);
            runtimeFailure("cannot copy '{}' into the private domain '{}': {}", optionsFile.string(), _path.string(), why);
        }
    }

    PrivateDomain::~PrivateDomain()
    {
        std::error_code ignored;
        std::filesystem::remove_all(_path, ignored);
    }
}
