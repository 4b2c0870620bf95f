// Where run-time modules are looked for (the fabrics backends, the CUDA device module): each directory of an
// environment variable (colon separated), then a folder beside the library that asks, then the install directory.
// Finding is shared; each loader words its own failure, since only it knows what the module is for.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mxl::modules
{
    // The directory of the file (shared library or program) that `address` was loaded from; empty when unknown.
    [[nodiscard]] std::string directoryContaining(void const* address);

    // In search order, each directory once, empty ones left out: those of the variable `environmentVariable`, then
    // `besideLibrary`, then `installDirectory`.
    [[nodiscard]] std::vector<std::string> searchDirectories(char const* environmentVariable, std::string const& besideLibrary,
                                                             std::string const& installDirectory);

    // The first `directory/file` that exists; nullopt when none does.
    [[nodiscard]] std::optional<std::string> findInDirectories(std::vector<std::string> const& directories, std::string const& file);

    // The directories joined with ':' as a failure message shows them.
    [[nodiscard]] std::string joinDirectories(std::vector<std::string> const& directories);

    // dlerror()'s text, or a placeholder where the loader gave none.
    [[nodiscard]] std::string dlerrorText();
}
