#include "fabrics/core/InterfaceList.hpp"

#include "fabrics/core/InterfaceChecks.hpp"

#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        char* duplicate(char const* text)
        {
            auto const size = std::strlen(text) + 1;
            auto* copy = new char[size];
            std::memcpy(copy, text, size);
            return copy;
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
                                         config.address.node = duplicate(found.address.node);
                                         config.address.service = duplicate(found.address.service);
                                         config.attr = duplicate(found.attr);
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
