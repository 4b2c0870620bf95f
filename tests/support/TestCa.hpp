// A certificate authority of a test's own (OpenSSL, EC P-256 keys made per instance), issuing server certificates for
// the addresses and names a test serves on, valid, expired or from another authority, as PEM files in a directory.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace mxl::test
{
    struct IssuedCertificate
    {
        std::string certificate;
        // Mode 0600, as the services ask of key files.
        std::string key;
    };

    class TestCa
    {
    public:
        // Writes <directory>/<name>-ca.pem.
        TestCa(std::filesystem::path directory, std::string name);
        ~TestCa();

        TestCa(TestCa const&) = delete;
        TestCa& operator=(TestCa const&) = delete;

        [[nodiscard]] std::string const& caFile() const noexcept
        {
            return _caFile;
        }

        // <directory>/<name>.pem (the leaf, then this authority) and <name>.key, for `hosts` (IP addresses and DNS names),
        // valid from `validFrom` to `validUntil` relative to now, with `name` as its common name.
        IssuedCertificate issue(std::string const& name, std::vector<std::string> const& hosts,
                                std::chrono::seconds validFrom = std::chrono::hours{-1},
                                std::chrono::seconds validUntil = std::chrono::hours{24}) const;

        // The same without a common name, as etcd's gateway asks of client certificates where its authentication is on.
        IssuedCertificate issueWithoutCommonName(std::string const& name, std::vector<std::string> const& hosts) const;

    private:
        struct Authority;

        IssuedCertificate issueAs(std::string const& name, std::string const& commonName, std::vector<std::string> const& hosts,
                                  std::chrono::seconds validFrom, std::chrono::seconds validUntil) const;

        std::filesystem::path _directory;
        std::string _caFile;
        std::unique_ptr<Authority> _authority;
    };
}
