// A file descriptor closed when its owner goes, so that every failure path closes it.
#pragma once

#include <unistd.h>

#include <utility>

namespace mxl
{
    class UniqueFd
    {
    public:
        explicit UniqueFd(int fd) noexcept
            : _fd{fd}
        {
        }

        ~UniqueFd()
        {
            if (_fd >= 0)
            {
                ::close(_fd);
            }
        }

        UniqueFd(UniqueFd const&) = delete;
        UniqueFd& operator=(UniqueFd const&) = delete;

        UniqueFd(UniqueFd&& other) noexcept
            : _fd{other.take()}
        {
        }

        UniqueFd& operator=(UniqueFd&&) = delete;

        [[nodiscard]] int get() const noexcept
        {
            return _fd;
        }

        // Hands the descriptor to a new owner.
        int take() noexcept
        {
            return std::exchange(_fd, -1);
        }

    private:
        int _fd;
    };
}
