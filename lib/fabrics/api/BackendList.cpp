#include "fabrics/api/BackendList.hpp"

#include "common/CString.hpp"

#include <memory>

namespace mxl::fabrics
{
    mxlFabricsBackendList* listBackends(std::vector<BackendFile> const& files)
    {
        auto list = std::make_unique<mxlFabricsBackendList>();
        list->backends = new mxlFabricsBackendInfo[files.size()]{};
        try
        {
            for (auto const& file : files)
            {
                auto& entry = list->backends[list->count];
                entry.name = newCString(file.name);
                entry.path = newCString(file.path);
                ++list->count;
            }
        }
        catch (...)
        {
            freeBackends(list.release());
            throw;
        }
        return list.release();
    }

    void freeBackends(mxlFabricsBackendList* list) noexcept
    {
        for (std::size_t i = 0; i < list->count; ++i)
        {
            delete[] list->backends[i].name;
            delete[] list->backends[i].path;
        }
        delete[] list->backends;
        delete list;
    }
}
