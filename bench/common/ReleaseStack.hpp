// Releases what a constructor acquired, newest first, even when the constructor throws half-way.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace mxl::bench
{
    class ReleaseStack
    {
    public:
        ReleaseStack() = default;
        ReleaseStack(ReleaseStack const&) = delete;
        ReleaseStack& operator=(ReleaseStack const&) = delete;

        ~ReleaseStack()
        {
            for (auto it = _releases.rbegin(); it != _releases.rend(); ++it)
            {
                (*it)();
            }
        }

        void push(std::function<void()> release)
        {
            _releases.push_back(std::move(release));
        }

    private:
        std::vector<std::function<void()>> _releases;
    };
}
