// Two network namespaces joined by a veth pair, 198.51.100.1/24 and 198.51.100.2/24 (TEST-NET-2): two "hosts" on one
// machine for the tcp tests. Both namespaces are deleted in the destructor, whatever happened.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    class NetworkNamespaces
    {
    public:
        static constexpr char const* firstAddress = "198.51.100.1";
        static constexpr char const* secondAddress = "198.51.100.2";

        // nullopt when namespaces cannot be made here (no privileges, no `ip`); `whyNot` then says why.
        static std::optional<NetworkNamespaces> create(std::string& whyNot);

        ~NetworkNamespaces();
        NetworkNamespaces(NetworkNamespaces&& other) noexcept;
        NetworkNamespaces& operator=(NetworkNamespaces&&) = delete;
        NetworkNamespaces(NetworkNamespaces const&) = delete;
        NetworkNamespaces& operator=(NetworkNamespaces const&) = delete;

        // Launcher arguments that run a program inside the first or second namespace.
        [[nodiscard]] std::vector<std::string> inFirst() const;
        [[nodiscard]] std::vector<std::string> inSecond() const;

    private:
        NetworkNamespaces(std::string first, std::string second);

        std::string _first;
        std::string _second;
    };
}
