#include "fabrics/transport/BackendLoader.hpp"

#include "common/ModuleEntry.hpp"
#include "common/ModuleSearch.hpp"
#include "common/Status.hpp"
#include "fabrics/transport/BackendInstallDir.hpp"
#include "fabrics/transport/HostLog.hpp"
#include "fabrics/transport/ProgramSignalHandlers.hpp"
#include "fabrics/transport/TableBackend.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    namespace
    {
        // Names become file names: nothing that could leave the directory or hide in a path.
        void checkName(std::string_view name)
        {
            auto const allowed = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_'; };
            if (name.empty() || !std::ranges::all_of(name, allowed))
            {
                fail(MXL_ERR_INVALID_ARG, "fabrics backend name \"{}\" must be letters, digits, '-' or '_'", name);
            }
        }

        // mxl-fabrics/ beside the file this code was loaded from: libmxl-fabrics.so, or a program that compiles the core in.
        std::vector<std::string> searchDirectories()
        {
            auto const here = modules::directoryContaining(reinterpret_cast<void const*>(&backendNamed));
            return modules::searchDirectories("MXL_FABRICS_BACKEND_PATH", here.empty() ? here : here + "/mxl-fabrics",
                                              std::string{backendInstallDir});
        }

        std::string findFile(std::string_view name, std::string const& file)
        {
            auto const directories = searchDirectories();
            if (auto found = modules::findInDirectories(directories, file))
            {
                return std::move(*found);
            }
            auto const* variable = std::getenv("MXL_FABRICS_BACKEND_PATH");
            fail(MXL_ERR_NO_FABRIC, "no fabrics backend \"{}\" ({}) in {} (MXL_FABRICS_BACKEND_PATH={})", name, file,
                 modules::joinDirectories(directories), variable != nullptr ? variable : "unset");
        }

        mxlFabricsBackend const& enter(std::string const& path)
        {
            auto* symbol = modules::entryPoint(path, MXL_FABRICS_BACKEND_ENTRY_SYMBOL, MXL_ERR_NO_FABRIC, "fabrics backend");
            auto const entry = reinterpret_cast<mxlFabricsBackendEntryFunction>(symbol);
            static mxlFabricsBackendHost const host{sizeof(mxlFabricsBackendHost), &writeBackendLine};
            mxlFabricsBackend const* table = nullptr;
            if (auto const status = entry(MXL_FABRICS_BACKEND_ABI_VERSION, &host, &table); status != MXL_STATUS_OK)
            {
                auto const* reason = table != nullptr ? table->last_error() : nullptr;
                fail(MXL_ERR_NO_FABRIC, "fabrics backend {} failed to initialise: {}", path,
                     reason != nullptr ? std::string{reason} : fmt::format("status {} and no reason", static_cast<int>(status)));
            }
            if (table == nullptr)
            {
                fail(MXL_ERR_NO_FABRIC, "fabrics backend {} returned no table from {}", path, MXL_FABRICS_BACKEND_ENTRY_SYMBOL);
            }
            if ((table->abiVersion >> 16) != MXL_FABRICS_BACKEND_ABI_MAJOR)
            {
                fail(MXL_ERR_UNSUPPORTED_OPERATION, "fabrics backend {} implements backend ABI {}.{}, this libmxl-fabrics needs {}.x", path,
                     table->abiVersion >> 16, table->abiVersion & 0xffffu, MXL_FABRICS_BACKEND_ABI_MAJOR);
            }
            // A 1.1 table is still served: the host reads the entries appended since only where structSize covers them.
            if (table->structSize < MXL_FABRICS_BACKEND_TABLE_1_1_SIZE)
            {
                fail(MXL_ERR_UNSUPPORTED_OPERATION, "fabrics backend {} has a table of {} bytes, this libmxl-fabrics needs at least {}",
                     path, table->structSize, MXL_FABRICS_BACKEND_TABLE_1_1_SIZE);
            }
            return *table;
        }
    }

    std::vector<BackendFile> backendFiles()
    {
        constexpr std::string_view prefix = "libmxl-fabrics-";
        constexpr std::string_view suffix = ".so";
        std::vector<BackendFile> files;
        for (auto const& directory : searchDirectories())
        {
            std::error_code error;
            std::vector<BackendFile> here;
            for (auto const& entry : std::filesystem::directory_iterator{directory, error})
            {
                auto const file = entry.path().filename().string();
                if (file.size() <= prefix.size() + suffix.size() || !file.starts_with(prefix) || !file.ends_with(suffix))
                {
                    continue;
                }
                auto name = file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
                auto const taken = [&](BackendFile const& known) { return known.name == name; };
                if (std::ranges::none_of(files, taken) && std::ranges::none_of(here, taken))
                {
                    here.push_back({std::move(name), entry.path().string()});
                }
            }
            // A directory lists its files in no particular order; a listing should read the same every time.
            std::ranges::sort(here, {}, &BackendFile::name);
            files.insert(files.end(), here.begin(), here.end());
        }
        return files;
    }

    Backend& backendNamed(std::string_view name)
    {
        checkName(name);
        // Loading runs a backend's initialisation: one at a time, and once per name for the life of the process.
        static std::mutex mutex;
        static std::map<std::string, std::unique_ptr<Backend>, std::less<>> loaded;
        std::lock_guard lock{mutex};
        if (auto const found = loaded.find(name); found != loaded.end())
        {
            return *found->second;
        }
        auto const file = fmt::format("libmxl-fabrics-{}.so", name);
        auto path = findFile(name, file);
        auto const& table = [&]() -> mxlFabricsBackend const&
        {
            ProgramSignalHandlers const kept;
            return enter(path);
        }();
        auto backend = tableBackend(table, {std::string{name}, std::move(path), table.abiVersion});
        return *loaded.emplace(std::string{name}, std::move(backend)).first->second;
    }
}
