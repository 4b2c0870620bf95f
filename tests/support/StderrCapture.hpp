// Sends everything written to stderr (where the libraries log) into a temporary file while it lives, so a test can
// assert on log lines.
#pragma once

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
}
