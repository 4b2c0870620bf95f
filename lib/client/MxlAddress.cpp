#include "MxlAddress.hpp"

#include "ClientError.hpp"
#include "FlowId.hpp"

#include <fmt/format.h>

#include <cctype>
#include <optional>

namespace mxl::client
{
    namespace
    {
        constexpr std::string_view scheme = "mxl://";

        std::optional<int> hexValue(char c)
        {
            auto const u = static_cast<unsigned char>(c);
            if (std::isdigit(u) != 0)
            {
                return c - '0';
            }
            if (std::isxdigit(u) != 0)
            {
                return std::tolower(u) - 'a' + 10;
            }
            return std::nullopt;
        }

        std::string percentDecode(std::string_view address, std::string_view text)
        {
            std::string decoded;
            for (std::size_t i = 0; i < text.size(); ++i)
            {
                if (text[i] != '%')
                {
                    decoded.push_back(text[i]);
                    continue;
                }
                auto const high = i + 1 < text.size() ? hexValue(text[i + 1]) : std::nullopt;
                auto const low = i + 2 < text.size() ? hexValue(text[i + 2]) : std::nullopt;
                if (!high || !low)
                {
                    throw ClientError{ErrorKind::Usage,
                                      fmt::format("address '{}' has a bad percent escape at '{}' (expected %XX with two hex digits)",
                                                  address, text.substr(i))};
                }
                decoded.push_back(static_cast<char>(*high * 16 + *low));
                i += 2;
            }
            return decoded;
        }

        bool startsWithScheme(std::string_view address)
        {
            if (address.size() < scheme.size())
            {
                return false;
            }
            for (std::size_t i = 0; i < scheme.size(); ++i)
            {
                if (std::tolower(static_cast<unsigned char>(address[i])) != scheme[i])
                {
                    return false;
                }
            }
            return true;
        }
    }

    MxlAddress parseMxlAddress(std::string_view address)
    {
        if (!startsWithScheme(address))
        {
            throw ClientError{ErrorKind::Usage,
                              fmt::format("'{}' is not an mxl:// address (expected mxl:///<domain-path>[?id=<uuid>])", address)};
        }
        auto rest = address.substr(scheme.size());
        if (auto const fragment = rest.find('#'); fragment != std::string_view::npos)
        {
            rest = rest.substr(0, fragment);
        }

        auto const authorityEnd = rest.find_first_of("/?");
        auto const authority = rest.substr(0, authorityEnd);
        if (!authority.empty())
        {
            throw ClientError{
                ErrorKind::Usage,
                fmt::format("address '{}' names the host '{}'; only local domains are supported (expected mxl:///<domain-path>, with three "
                            "slashes)",
                            address, authority)};
        }
        rest = authorityEnd == std::string_view::npos ? std::string_view{} : rest.substr(authorityEnd);

        auto const queryStart = rest.find('?');
        MxlAddress result;
        result.domain = percentDecode(address, rest.substr(0, queryStart));
        if (result.domain.empty())
        {
            throw ClientError{ErrorKind::Usage, fmt::format("address '{}' has no domain path (expected mxl:///<domain-path>)", address)};
        }

        auto query = queryStart == std::string_view::npos ? std::string_view{} : rest.substr(queryStart + 1);
        while (!query.empty())
        {
            auto const end = query.find('&');
            auto const pair = query.substr(0, end);
            query = end == std::string_view::npos ? std::string_view{} : query.substr(end + 1);
            if (pair.empty())
            {
                continue;
            }
            auto const equals = pair.find('=');
            auto const key = pair.substr(0, equals);
            if (key != "id" || equals == std::string_view::npos)
            {
                throw ClientError{ErrorKind::Usage,
                                  fmt::format("address '{}' has the query parameter '{}'; only id=<uuid> is understood", address, pair)};
            }
            result.flowIds.push_back(requireFlowId(percentDecode(address, pair.substr(equals + 1))));
        }
        return result;
    }

    std::string formatMxlAddress(std::string_view domain, std::vector<std::string> const& flowIds)
    {
        std::string address = domain.starts_with('/') ? "mxl://" : "mxl:///";
        for (auto const c : domain)
        {
            auto const u = static_cast<unsigned char>(c);
            bool const plain = std::isalnum(u) != 0 || c == '/' || c == '-' || c == '.' || c == '_' || c == '~';
            address += plain ? std::string(1, c) : fmt::format("%{:02X}", u);
        }
        char separator = '?';
        for (auto const& id : flowIds)
        {
            address += fmt::format("{}id={}", separator, id);
            separator = '&';
        }
        return address;
    }
}
