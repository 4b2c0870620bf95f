#include "common/ModuleSearch.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace mxl::modules
{
    std::string directoryContaining(void const* address)
    {
        Dl_info info{};
        if (::dladdr(address, &info) == 0 || info.dli_fname == nullptr)
        {
            return {};
        }
        return std::filesystem::path{info.dli_fname}.parent_path().string();
    }

    std::vector<std::string> searchDirectories(char const* environmentVariable, std::string const& besideLibrary,
                                               std::string const& installDirectory)
    {
        std::vector<std::string> directories;
        auto const add = [&](std::string directory)
        {
            if (!directory.empty() && std::ranges::find(directories, directory) == directories.end())
            {
                directories.push_back(std::move(directory));
            }
        };
        if (auto const* path = std::getenv(environmentVariable); path != nullptr)
        {
            std::string_view rest{path};
            while (!rest.empty())
            {
                auto const colon = rest.find(':');
                add(std::string{rest.substr(0, colon)});
                rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
            }
        }
        add(besideLibrary);
        add(installDirectory);
        return directories;
    }

    std::optional<std::string> findInDirectories(std::vector<std::string> const& directories, std::string const& file)
    {
        for (auto const& directory : directories)
        {
            auto candidate = std::filesystem::path{directory} / file;
            std::error_code ignored;
            if (std::filesystem::exists(candidate, ignored))
            {
                return candidate.string();
            }
        }
        return std::nullopt;
    }

    std::string joinDirectories(std::vector<std::string> const& directories)
    {
        std::string joined;
        for (auto const& directory : directories)
        {
            joined += (joined.empty() ? "" : ":") + directory;
        }
        return joined;
    }

    std::string dlerrorText()
    {
        auto const* text = ::dlerror();
        return text != nullptr ? text : "(no reason given)";
    }
}
