// Two network namespaces joined by a veth pair, 198.51.100.1/24 and 198.51.100.2/24 (TEST-NET-2): two "hosts" on one
// machine, with a link a test can cut. Both namespaces are deleted in the destructor, whatever happened.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace mxl::test
{
    class NetworkNamespaces
    {
    public:
        static constexpr char const* firstAddress = "198.51.100.1";
        static constexpr char const* secondAddress = "198.51.100.2";

        // nullptr when namespaces cannot be made here (no privileges, no `ip`); `whyNot` then says why.
        static std::unique_ptr<NetworkNamespaces> create(std::string& whyNot);

        ~NetworkNamespaces();
        NetworkNamespaces(NetworkNamespaces const&) = delete;
        NetworkNamespaces& operator=(NetworkNamespaces const&) = delete;

        // Launcher arguments that run a program inside the first or the second namespace.
        [[nodiscard]] std::vector<std::string> inFirst() const;
        [[nodiscard]] std::vector<std::string> inSecond() const;

        // Takes the first namespace's end of the link down or up (up waits for the carrier); false when `ip` failed.
        bool setLink(bool up) const;

    private:
        explicit NetworkNamespaces(std::string tag);

        std::string _tag;
    };
}
