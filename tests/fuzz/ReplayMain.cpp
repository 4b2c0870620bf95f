// Feeds every file of the corpus directories named on the command line through the harness linked in, in name order,
// without libFuzzer: this is how the corpora run in ctest and under the gcc sanitizer build.
#include "FuzzEntry.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace
{
    std::vector<std::uint8_t> readFile(std::filesystem::path const& path)
    {
        std::ifstream stream{path, std::ios::binary};
        return {std::istreambuf_iterator<char>{stream}, std::istreambuf_iterator<char>{}};
    }
}

int main(int argc, char** argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    std::size_t replayed = 0;
    for (int i = 1; i < argc; ++i)
    {
        std::error_code error;
        std::vector<std::filesystem::path> files;
        for (auto const& entry : std::filesystem::directory_iterator{argv[i], error})
        {
            if (entry.is_regular_file())
            {
                files.push_back(entry.path());
            }
        }
        if (error)
        {
            std::fprintf(stderr, "replay: cannot read corpus directory '%s': %s\n", argv[i], error.message().c_str());
            return 1;
        }
        std::sort(files.begin(), files.end());
        for (auto const& file : files)
        {
            // Printed first, so that the input is named when the harness aborts on it.
            std::printf("replay: %s\n", file.c_str());
            std::fflush(stdout);
            auto const bytes = readFile(file);
            LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
            ++replayed;
        }
    }
    // An empty or mistyped corpus path must not pass as "nothing crashed".
    if (replayed == 0)
    {
        std::fprintf(stderr, "replay: no corpus files given (usage: %s <corpus-dir>...)\n", argv[0]);
        return 1;
    }
    std::printf("replay: %zu inputs, no failures\n", replayed);
    return 0;
}
