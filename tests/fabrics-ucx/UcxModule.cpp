#include "UcxModule.hpp"

#include "GrainPattern.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <strings.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace mxl::test::ucx
{
    namespace
    {
        struct Loaded
        {
            mxlFabricsBackendEntryFunction entry = nullptr;
            mxlFabricsBackend const* table = nullptr;
            std::optional<std::string> whyMissing;
        };

        // As the library reads MXL_LOG_LEVEL: case does not matter.
        bool hidesWarnings(char const* level)
        {
            return ::strcasecmp(level, "error") == 0 || ::strcasecmp(level, "critical") == 0 || ::strcasecmp(level, "off") == 0;
        }

        Loaded load()
        {
            Loaded loaded;
            std::string const path = MXL_FABRICS_UCX_MODULE;
            if (path.empty())
            {
                loaded.whyMissing = "the UCX backend is not built (MXL_FABRICS_BACKEND_UCX is OFF: no pkg-config ucx)";
                return loaded;
            }
            // Some cases assert that a warning was not logged: a threshold that hides warnings would let them pass blind.
            // The module reads MXL_LOG_LEVEL once, the first time it logs.
            if (auto const* level = std::getenv("MXL_LOG_LEVEL"); level != nullptr && hidesWarnings(level))
            {
                ::setenv("MXL_LOG_LEVEL", "warn", 1);
            }
            // Never closed: the table says a backend is never unloaded.
            auto* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (module == nullptr)
            {
                loaded.whyMissing = fmt::format("dlopen {}: {}", path, ::dlerror());
                return loaded;
            }
            loaded.entry = reinterpret_cast<mxlFabricsBackendEntryFunction>(::dlsym(module, MXL_FABRICS_BACKEND_ENTRY_SYMBOL));
            if (loaded.entry == nullptr)
            {
                loaded.whyMissing = fmt::format("{} has no {}", path, MXL_FABRICS_BACKEND_ENTRY_SYMBOL);
                return loaded;
            }
            mxlFabricsBackendHost const host{sizeof(mxlFabricsBackendHost), nullptr};
            if (auto const status = loaded.entry(MXL_FABRICS_BACKEND_ABI_VERSION, &host, &loaded.table); status != MXL_STATUS_OK)
            {
                loaded.whyMissing = fmt::format("{}: the entry failed with status {}", path, static_cast<int>(status));
                loaded.table = nullptr;
            }
            else if (loaded.table == nullptr)
            {
                loaded.whyMissing = fmt::format("{}: the entry succeeded without giving a table", path);
            }
            return loaded;
        }

        Loaded const& loaded()
        {
            static Loaded const once = load();
            return once;
        }

        std::string hex(std::uint8_t const* bytes, std::size_t size)
        {
            std::string text;
            for (std::size_t i = 0; i < size; ++i)
            {
                text += fmt::format("{:02x}", bytes[i]);
            }
            return text.empty() ? "-" : text;
        }

        std::vector<std::uint8_t> unhex(std::string const& text)
        {
            std::vector<std::uint8_t> bytes;
            if (text == "-")
            {
                return bytes;
            }
            for (std::size_t i = 0; i + 1 < text.size(); i += 2)
            {
                bytes.push_back(static_cast<std::uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
            }
            return bytes;
        }
    }

    mxlFabricsBackend const* backend()
    {
        return loaded().table;
    }

    std::optional<std::string> const& unavailable()
    {
        return loaded().whyMissing;
    }

    mxlFabricsBackendEntryFunction entry()
    {
        return loaded().entry;
    }

    mxlFabricsInterfaceConfig interfaceOf(mxlFabricsProvider provider, char const* node)
    {
        mxlFabricsInterfaceConfig config{};
        config.provider = provider;
        config.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
        config.address.node = node;
        config.address.service = "";
        return config;
    }

    std::string describe(mxlFabricsBackend const& table, mxlStatus status)
    {
        auto const* text = table.last_error();
        return fmt::format("status {}: {}", static_cast<int>(status), text != nullptr ? text : "(no text)");
    }

    PlannedWrite plannedWrite(std::uint32_t index)
    {
        // Writes never overlap (a 16 KiB slot each), so each can be checked whenever its immediate arrives.
        constexpr std::uint64_t slotBytes = 16 * 1024;
        auto const slot = index / planRegionCount;
        if ((slot + 1) * slotBytes > planRegionBytes)
        {
            throw std::out_of_range{fmt::format("write {} is beyond the plan's {} slots", index, planRegionBytes / slotBytes)};
        }
        return {index % planRegionCount, slot * slotBytes + (index % 3) * 8, 1000 + (index * 997ULL) % 15000};
    }

    std::vector<std::uint8_t> plannedBytes(std::uint32_t index)
    {
        return grainPattern(plannedWrite(index).length, index);
    }

    PlannedSource plannedSource(std::uint32_t writes)
    {
        PlannedSource source;
        for (std::uint32_t index = 0; index < writes; ++index)
        {
            source.offsets.push_back(source.bytes.size());
            auto const bytes = plannedBytes(index);
            source.bytes.insert(source.bytes.end(), bytes.begin(), bytes.end());
        }
        return source;
    }

    std::string encodeTicket(mxlFabricsBackendBlob address, std::uint32_t format, mxlFabricsBackendRemoteRegion const* regions,
                             std::uint32_t count)
    {
        auto line = fmt::format("{} {} {}", hex(address.bytes, address.size), format, count);
        for (std::uint32_t i = 0; i < count; ++i)
        {
            line += fmt::format(" {} {} {}", regions[i].address, regions[i].length, hex(regions[i].key.bytes, regions[i].key.size));
        }
        return line;
    }

    DecodedTicket decodeTicket(std::string const& line)
    {
        std::istringstream in{line};
        DecodedTicket ticket;
        std::string address;
        std::uint32_t count = 0;
        in >> address >> ticket.format >> count;
        ticket.address = unhex(address);
        for (std::uint32_t i = 0; i < count; ++i)
        {
            std::uint64_t regionAddress = 0;
            std::uint64_t length = 0;
            std::string key;
            in >> regionAddress >> length >> key;
            ticket.regionAddresses.push_back(regionAddress);
            ticket.regionLengths.push_back(length);
            ticket.keys.push_back(unhex(key));
        }
        return ticket;
    }

    std::vector<mxlFabricsBackendRemoteRegion> DecodedTicket::regions() const
    {
        std::vector<mxlFabricsBackendRemoteRegion> result;
        for (std::size_t i = 0; i < keys.size(); ++i)
        {
            result.push_back({regionAddresses[i], regionLengths[i], {keys[i].data(), keys[i].size()}});
        }
        return result;
    }
}
