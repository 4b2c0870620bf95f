#include "fabrics/core/InterfaceList.hpp"

#include "common/BoundedJson.hpp"
#include "common/CString.hpp"
#include "fabrics/core/InterfaceChecks.hpp"

#include <nlohmann/json.hpp>

namespace mxl::fabrics
{
    namespace
    {
        // Every interface says how it carries a device flow, so that the choice is never silent (docs/device-flows.md,
        // "Across the fabric"): one that registers device memory (CAP_HMEM) carries it directly where registering the
        // flow's ring succeeds (setup option devicePayloads "auto"), every other stages it through pinned host memory.
        std::string withDevicePayloads(char const* attributes, std::uint64_t capabilityFlags)
        {
            std::string const text = attributes != nullptr && *attributes != '\0' ? attributes : "{}";
            auto json = mxl::parseJsonOrDiscarded(text);
            if (!json.is_object())
            {
                return text;
            }
            json["device_payloads"] = (capabilityFlags & MXL_FABRICS_IFACE_CAP_HMEM) != 0
                                          ? "registered directly where the device memory registers, else staged through pinned host memory"
                                          : "staged through pinned host memory";
            return json.dump();
        }
    }

    mxlFabricsInterfaceList* listInterfaces(Backend& backend, mxlFabricsInterfaceConfig const* query)
    {
        checkInterfaceQuery(query);
        mxlFabricsInterfaceList* head = nullptr;
        mxlFabricsInterfaceList** tail = &head;
        try
        {
            backend.forEachInterface(query,
                                     [&](mxlFabricsInterfaceConfig const& found)
                                     {
                                         auto* entry = new mxlFabricsInterfaceList{};
                                         *tail = entry;
                                         tail = &entry->next;
                                         auto& config = entry->interface;
                                         // Field by field: the entry never holds the transport's strings, which freeing would delete.
                                         config.version = found.version;
                                         config.provider = found.provider;
                                         config.caps = found.caps;
                                         config.address.node = newCString(found.address.node);
                                         config.address.service = newCString(found.address.service);
                                         config.attr = newCString(withDevicePayloads(found.attr, found.caps.flags));
                                     });
        }
        catch (...)
        {
            freeInterfaces(head);
            throw;
        }
        return head;
    }

    void freeInterfaces(mxlFabricsInterfaceList* list) noexcept
    {
        while (list != nullptr)
        {
            auto* next = list->next;
            delete[] list->interface.address.node;
            delete[] list->interface.address.service;
            delete[] list->interface.attr;
            delete list;
            list = next;
        }
    }
}
