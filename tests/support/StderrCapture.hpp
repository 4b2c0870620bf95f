// Sends everything written to stderr (where the libraries log) into a temporary file while it lives, so a test can
// assert on log lines.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace mxl::test
{
    class StderrCapture
    {
    public:
        StderrCapture();
        ~StderrCapture();

        StderrCapture(StderrCapture const&) = delete;
        StderrCapture& operator=(StderrCapture const&) = delete;

        // Restores stderr and returns what was written.
        std::string text();

    private:
        std::FILE* _file;
        int _saved = -1;

        void restore();
    };

    // How many times `part` occurs in `text`, not overlapping: the log lines a capture holds of one kind.
    [[nodiscard]] std::size_t occurrences(std::string const& text, std::string const& part);
}
