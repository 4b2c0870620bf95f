// A domain of a tool's own inside a user's domain: a hidden directory "<domain>/.mxl-private-<pid>-<n>" that holds flows
// no one else should open (the redundant target's path flows). The flow library and mxl-info list only "<uuid>.mxl-flow"
// entries of a domain, so they never see it; it shares the domain's file system and, unless told otherwise, its options.json (history
// length).
#pragma once

#include <filesystem>
#include <string>

namespace mxl::client
{
    class PrivateDomain
    {
    public:
        // Whether the private domain takes the domain's options.json (its history length) or the library's defaults: a
        // scratch domain in a shared directory such as /tmp must not take a file anyone could have put there.
        enum class Options
        {
            Inherited,
            Defaults,
        };

        // Creates the directory; throws ClientError(Failure) naming it.
        explicit PrivateDomain(std::filesystem::path const& domain, Options options = Options::Inherited);
        // Removes the directory with everything in it: release every flow of it first.
        ~PrivateDomain();

        PrivateDomain(PrivateDomain const&) = delete;
        PrivateDomain& operator=(PrivateDomain const&) = delete;

        [[nodiscard]] std::string str() const
        {
            return _path.string();
        }

    private:
        std::filesystem::path _path;
    };
}
