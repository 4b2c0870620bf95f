#include "TicketKey.hpp"

#include "DirectoryError.hpp"

#include <fmt/format.h>

#include <charconv>

namespace mxl::directory
{
    std::string ticketKey(std::string_view domainName, std::string_view flowId)
    {
        if (domainName.empty() || domainName.find('/') != std::string_view::npos)
        {
            throw DirectoryError{
                fmt::format("'{}' cannot name a domain in a ticket key: it must be non-empty and hold no '/'", domainName)};
        }
        return fmt::format("{}{}/{}", ticketKeyPrefix, domainName, flowId);
    }

    bool isEtcdUrl(std::string_view text) noexcept
    {
        return text.starts_with(etcdScheme);
    }

    EtcdLocation parseEtcdUrl(std::string_view url)
    {
        if (!isEtcdUrl(url))
        {
            throw DirectoryError{fmt::format("'{}' is not an etcd:// URL", url)};
        }
        auto const rest = url.substr(etcdScheme.size());
        auto const slash = rest.find('/');
        auto const endpoint = rest.substr(0, slash);
        auto const colon = endpoint.rfind(':');
        if (slash == std::string_view::npos || slash + 1 == rest.size() || colon == std::string_view::npos || colon == 0 ||
            colon + 1 == endpoint.size())
        {
            throw DirectoryError{
                fmt::format("'{}' is not etcd://host:port/key (e.g. etcd://192.0.2.5:2379{}studio-a/<flow id>)", url, ticketKeyPrefix)};
        }
        unsigned port = 0;
        auto const digits = endpoint.substr(colon + 1);
        auto const [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
        if (error != std::errc{} || end != digits.data() + digits.size() || port == 0 || port > 65535)
        {
            throw DirectoryError{fmt::format("'{}': the port '{}' is not a number from 1 to 65535", url, digits)};
        }
        return EtcdLocation{std::string{endpoint}, std::string{rest.substr(slash)}};
    }
}
