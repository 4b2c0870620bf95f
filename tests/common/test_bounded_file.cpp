#include <common/BoundedFile.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace mxl
{
    namespace
    {
        struct ScratchDirectory
        {
            std::filesystem::path path = std::filesystem::temp_directory_path() / ("mxl-bounded-file-" + std::to_string(::getpid()));

            ScratchDirectory()
            {
                std::filesystem::create_directories(path);
            }

            ~ScratchDirectory()
            {
                std::filesystem::remove_all(path);
            }
        };

        std::string reasonFor(std::filesystem::path const& path, std::size_t maxBytes = defaultMaxFileBytes)
        {
            try
            {
                static_cast<void>(readBoundedFile(path, maxBytes));
            }
            catch (FileReadError const& error)
            {
                CHECK(std::string{error.what()} == "'" + path.string() + "': " + error.reason());
                return error.reason();
            }
            return "read";
        }
    }

    TEST_CASE("bounded file: a regular file under the limit is read whole, byte for byte")
    {
        ScratchDirectory scratch;
        auto const file = scratch.path / "text.json";
        std::string const content{"{\"a\": 1}\n\0tail", 15};
        std::ofstream{file, std::ios::binary} << content;
        CHECK(readBoundedFile(file) == content);
        CHECK(readBoundedFile(file, content.size()) == content);
    }

    TEST_CASE("bounded file: devices, FIFOs, directories, missing and oversized files are refused by name at once")
    {
        ScratchDirectory scratch;
        CHECK(reasonFor("/dev/zero") == "it is a character device, not a regular file");
        CHECK(reasonFor(scratch.path) == "it is a directory, not a regular file");
        CHECK(reasonFor(scratch.path / "missing") == "No such file or directory");
        auto const fifo = scratch.path / "fifo";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        // No writer ever opens it: refusing must not wait for one.
        auto const started = std::chrono::steady_clock::now();
        CHECK(reasonFor(fifo) == "it is a FIFO, not a regular file");
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{5});
        auto const large = scratch.path / "large";
        std::ofstream{large} << std::string(2000, 'x');
        CHECK(reasonFor(large, 1999) == "it is 2000 bytes, more than the 1999 accepted");
        CHECK(reasonFor(large, 2000) == "read");
    }
}
