#include "common/ModuleEntry.hpp"

#include "common/ModuleSearch.hpp"
#include "common/Status.hpp"

#include <dlfcn.h>

namespace mxl::modules
{
    void* entryPoint(std::string const& path, char const* symbol, mxlStatus status, std::string_view module)
    {
        // RTLD_LOCAL: what a module links in (a backend's copy of lib/common and of its transport, the device module's
        // statically linked CUDA runtime) stays out of the program's symbol namespace.
        auto* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr)
        {
            fail(status, "cannot load {} {}: {}", module, path, dlerrorText());
        }
        static_cast<void>(::dlerror());
        auto* entry = ::dlsym(handle, symbol);
        if (entry == nullptr)
        {
            auto const reason = dlerrorText();
            ::dlclose(handle);
            fail(status, "{} {} has no {}: {}", module, path, symbol, reason);
        }
        return entry;
    }
}
