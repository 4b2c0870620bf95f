#include "fabrics/ticket/TargetInfo.hpp"

#include "common/Base64.hpp"
#include "common/BoundedJson.hpp"
#include "common/Status.hpp"
#include "fabrics/ticket/ProviderNames.hpp"
#include "fabrics/ticket/TicketAddressFormat.hpp"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        using Json = nlohmann::json;

        std::string decimal(std::uint64_t value)
        {
            return std::to_string(value);
        }

        Json const& member(Json const& object, char const* key, char const* where)
        {
            auto const found = object.find(key);
            if (found == object.end())
            {
                fail(MXL_ERR_UNKNOWN, "target info: {} has no \"{}\"", where, key);
            }
            return *found;
        }

        std::string const& stringMember(Json const& object, char const* key, char const* where)
        {
            auto const& value = member(object, key, where);
            if (!value.is_string())
            {
                fail(MXL_ERR_UNKNOWN, "target info: \"{}\" of {} must be a string, not {}", key, where, value.type_name());
            }
            return value.get_ref<std::string const&>();
        }

        std::uint64_t decimalMember(Json const& object, char const* key, char const* where)
        {
            auto const& text = stringMember(object, key, where);
            std::uint64_t value = 0;
            auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc{} || end != text.data() + text.size())
            {
                fail(MXL_ERR_UNKNOWN, "target info: \"{}\" of {} must be a decimal 64-bit number, not \"{}\"", key, where, text);
            }
            return value;
        }

        bool isKnownAddressFormat(std::int64_t format)
        {
            return std::ranges::any_of(ticketAddressFormats,
                                       [&](TicketAddressFormat candidate) { return format == static_cast<std::int64_t>(candidate); });
        }

        RemoteRegion regionOf(Json const& region)
        {
            RemoteRegion parsed;
            parsed.addr = decimalMember(region, "addr", "a region");
            parsed.len = decimalMember(region, "len", "a region");
            if (!region.contains("rkeyBlob"))
            {
                parsed.rkey = decimalMember(region, "rkey", "a region");
                return parsed;
            }
            auto const& text = stringMember(region, "rkeyBlob", "a region");
            auto const key = decodeBase64(text);
            if (!key || key->empty())
            {
                fail(MXL_ERR_UNKNOWN, "target info: \"rkeyBlob\" of a region must be non-empty standard base64, not \"{}\"", text);
            }
            parsed.keyBlob.assign(key->begin(), key->end());
            return parsed;
        }

        bool hasFormat(TargetInfo const& info, TicketAddressFormat format)
        {
            return info.addressFormat == static_cast<std::uint32_t>(format);
        }
    }

    std::string TargetInfo::toJson() const
    {
        // nlohmann's objects are std::maps: dump() writes the keys sorted and, without an indent, compact.
        Json regionArray = Json::array();
        for (auto const& region : regions)
        {
            Json entry = {{"addr", decimal(region.addr)}, {"len", decimal(region.len)}};
            if (region.keyBlob.empty())
            {
                entry["rkey"] = decimal(region.rkey);
            }
            else
            {
                entry["rkeyBlob"] = encodeBase64({reinterpret_cast<char const*>(region.keyBlob.data()), region.keyBlob.size()});
            }
            regionArray.push_back(std::move(entry));
        }
        Json json = {
            {"addressFormat", addressFormat},
            {"fabricAddress", encodeBase64({reinterpret_cast<char const*>(fabricAddress.data()), fabricAddress.size()})},
            {"id", decimal(id)},
            {"provider", provider == MXL_FABRICS_PROVIDER_ANY ? std::string{"unknown"} : std::string{*providerName(provider)}},
            {"regions", regionArray},
        };
        if (bounceBuffer)
        {
            json["bounceBufferInfo"] = {{"entryCount", decimal(bounceBuffer->entryCount)}, {"entrySize", decimal(bounceBuffer->entrySize)}};
        }
        if (epoch != 0)
        {
            json["epoch"] = decimal(epoch);
        }
        if (backend != defaultBackendName)
        {
            json["backend"] = backend;
        }
        if (transport != defaultTransportName)
        {
            json["transport"] = transport;
        }
        if (splitGrainRegions)
        {
            json["grainRegions"] = "split";
        }
        return json.dump();
    }

    std::string TargetInfo::describeAddress() const
    {
        char text[INET6_ADDRSTRLEN] = {};
        if (hasFormat(*this, TicketAddressFormat::SockaddrIn) && fabricAddress.size() >= sizeof(sockaddr_in))
        {
            sockaddr_in address;
            std::memcpy(&address, fabricAddress.data(), sizeof(address));
            ::inet_ntop(AF_INET, &address.sin_addr, text, sizeof(text));
            return fmt::format("{}:{}", text, ntohs(address.sin_port));
        }
        if (hasFormat(*this, TicketAddressFormat::SockaddrIn6) && fabricAddress.size() >= sizeof(sockaddr_in6))
        {
            sockaddr_in6 address;
            std::memcpy(&address, fabricAddress.data(), sizeof(address));
            ::inet_ntop(AF_INET6, &address.sin6_addr, text, sizeof(text));
            return fmt::format("[{}]:{}", text, ntohs(address.sin6_port));
        }
        if (hasFormat(*this, TicketAddressFormat::Str))
        {
            return std::string{reinterpret_cast<char const*>(fabricAddress.data()),
                               ::strnlen(reinterpret_cast<char const*>(fabricAddress.data()), fabricAddress.size())};
        }
        return encodeBase64({reinterpret_cast<char const*>(fabricAddress.data()), fabricAddress.size()});
    }

    TargetInfo TargetInfo::fromJson(char const* text)
    {
        auto const json = mxl::parseJsonOrDiscarded(text);
        if (json.is_discarded())
        {
            fail(MXL_ERR_INVALID_ARG, "target info is not valid JSON");
        }
        if (!json.is_object())
        {
            fail(MXL_ERR_INVALID_ARG, "target info must be a JSON object, not {}", json.type_name());
        }

        TargetInfo info;
        auto const& format = member(json, "addressFormat", "the ticket");
        if (!format.is_number_integer() || !isKnownAddressFormat(format.get<std::int64_t>()))
        {
            fail(MXL_ERR_INVALID_ARG,
                 "target info: addressFormat {} is not an address format MXL uses (a libfabric one or a UCX worker address)",
                 format.dump());
        }
        info.addressFormat = format.get<std::uint32_t>();

        auto address = decodeBase64(stringMember(json, "fabricAddress", "the ticket"));
        if (!address || address->empty())
        {
            fail(MXL_ERR_UNKNOWN, "target info: fabricAddress must be non-empty standard base64");
        }
        info.fabricAddress.assign(address->begin(), address->end());
        info.id = decimalMember(json, "id", "the ticket");

        // Tickets of newer SDKs may name providers we do not know: they read as ANY, as in the SDK.
        auto const& provider = stringMember(json, "provider", "the ticket");
        info.provider = providerFromName(provider).value_or(MXL_FABRICS_PROVIDER_ANY);

        auto const& regions = member(json, "regions", "the ticket");
        if (!regions.is_array())
        {
            fail(MXL_ERR_UNKNOWN, "target info: regions must be an array, not {}", regions.type_name());
        }
        for (auto const& region : regions)
        {
            if (!region.is_object())
            {
                fail(MXL_ERR_UNKNOWN, "target info: every region must be an object, not {}", region.type_name());
            }
            info.regions.push_back(regionOf(region));
        }

        if (auto const bounce = json.find("bounceBufferInfo"); bounce != json.end())
        {
            if (!bounce->is_object())
            {
                fail(MXL_ERR_UNKNOWN, "target info: bounceBufferInfo must be an object, not {}", bounce->type_name());
            }
            info.bounceBuffer = BounceBufferInfo{decimalMember(*bounce, "entryCount", "bounceBufferInfo"),
                                                 decimalMember(*bounce, "entrySize", "bounceBufferInfo")};
        }
        if (json.contains("epoch"))
        {
            info.epoch = decimalMember(json, "epoch", "the ticket");
        }
        if (json.contains("backend"))
        {
            info.backend = stringMember(json, "backend", "the ticket");
        }
        if (json.contains("transport"))
        {
            info.transport = stringMember(json, "transport", "the ticket");
            if (info.transport != "rma" && info.transport != "msg")
            {
                fail(MXL_ERR_UNKNOWN, "target info: transport must be \"rma\" or \"msg\", not \"{}\"", info.transport);
            }
        }
        if (json.contains("grainRegions"))
        {
            auto const& layout = stringMember(json, "grainRegions", "the ticket");
            if (layout != "split")
            {
                fail(MXL_ERR_UNKNOWN, "target info: grainRegions must be \"split\" (or absent: one region per grain), not \"{}\"", layout);
            }
            if (info.bounceBuffer)
            {
                fail(MXL_ERR_UNKNOWN, "target info: grainRegions \"split\" describes grain regions, but the ticket has a bounceBufferInfo "
                                      "(a sample-flow target)");
            }
            if (info.regions.size() % 2 != 0)
            {
                fail(MXL_ERR_UNKNOWN,
                     "target info: grainRegions \"split\" needs a header and a payload region per ring slot, but the "
                     "ticket has {} regions (an odd count)",
                     info.regions.size());
            }
            info.splitGrainRegions = true;
        }
        return info;
    }
}
