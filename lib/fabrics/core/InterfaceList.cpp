#include "fabrics/core/InterfaceList.hpp"

#include "common/CString.hpp"
#include "fabrics/core/InterfaceChecks.hpp"

namespace mxl::fabrics
{
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
                                         config.attr = newCString(found.attr);
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
