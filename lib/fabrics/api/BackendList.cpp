#include "fabrics/api/BackendList.hpp"

#include <cstring>
#include <memory>

namespace mxl::fabrics
{
    namespace
    {
        char* duplicate(std::string const& text)
        {
            auto copy = std::make_unique<char[]>(text.size() + 1);
            std::memcpy(copy.get(), text.c_str(), text.size() + 1);
            return copy.release();
        }
    }

    mxlFabricsBackendList* listBackends(std::vector<BackendFile> const& files)
    {
        auto list = std::make_unique<mxlFabricsBackendList>();
        list->backends = new mxlFabricsBackendInfo[files.size()]{};
        try
        {
            for (auto const& file : files)
            {
                auto& entry = list->backends[list->count];
                entry.name = duplicate(file.name);
                entry.path = duplicate(file.path);
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
