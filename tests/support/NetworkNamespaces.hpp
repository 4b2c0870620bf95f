// Two network namespaces joined by a veth pair, 198.51.100.1/25 and 198.51.100.2/25 (TEST-NET-2): two "hosts" on one
// machine, with a link a test can cut. Optionally a second veth pair, link B, 198.51.100.129/25 and .130/25: another
// subnet, so that each address routes over its own link (redundant paths). Both namespaces are deleted in the
// destructor, whatever happened.
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
        // Link B's ends, with `links` 2.
        static constexpr char const* firstAddressB = "198.51.100.129";
        static constexpr char const* secondAddressB = "198.51.100.130";

        enum class Link
        {
            A,
            B,
        };

        // nullptr when namespaces cannot be made here (no privileges, no `ip`); `whyNot` then says why. `links`: 1 or 2.
        static std::unique_ptr<NetworkNamespaces> create(std::string& whyNot, int links = 1);

        ~NetworkNamespaces();
        NetworkNamespaces(NetworkNamespaces const&) = delete;
        NetworkNamespaces& operator=(NetworkNamespaces const&) = delete;

        // Launcher arguments that run a program inside the first or the second namespace.
        [[nodiscard]] std::vector<std::string> inFirst() const;
        [[nodiscard]] std::vector<std::string> inSecond() const;

        // Takes the first namespace's end of `link` down or up (up waits for the carrier); false when `ip` failed.
        bool setLink(bool up, Link link = Link::A) const;

    private:
        NetworkNamespaces(std::string tag, int links);

        std::string _tag;
        int _links;
    };
}
