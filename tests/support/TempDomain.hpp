// A fresh, empty domain directory on /dev/shm, removed with everything in it when the test ends.
#pragma once

#include <filesystem>
#include <string>

namespace mxl::test
{
    class TempDomain
    {
    public:
        explicit TempDomain(std::string const& tag = "test");
        ~TempDomain();

        TempDomain(TempDomain const&) = delete;
        TempDomain& operator=(TempDomain const&) = delete;

        [[nodiscard]] std::filesystem::path const& path() const noexcept
        {
            return _path;
        }

        [[nodiscard]] std::string str() const
        {
            return _path.string();
        }

    private:
        std::filesystem::path _path;
    };

    // Reads a whole file (flow definitions in flows/ and tests/data/).
    std::string readFile(std::filesystem::path const& path);

    // Writes `secret` and a newline to `path`, mode 0600 as the services ask of secret files; the path.
    std::string writeSecretFile(std::filesystem::path const& path, std::string const& secret);

    // A file of the source tree, e.g. sourcePath("flows/v210_1080p25.json").
    std::filesystem::path sourcePath(std::string const& relative);

    // A program of the build tree, e.g. binaryPath("tools/mxl-info/mxl-info").
    std::filesystem::path binaryPath(std::string const& relative);
}
