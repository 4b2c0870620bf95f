#include "TestCa.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <cstdio>
#include <sys/stat.h>

namespace mxl::test
{
    namespace
    {
        using OwnedKey = std::unique_ptr<EVP_PKEY, decltype(&::EVP_PKEY_free)>;
        using Certificate = std::unique_ptr<X509, decltype(&::X509_free)>;

        OwnedKey newKey()
        {
            OwnedKey key{::EVP_EC_gen("P-256"), &::EVP_PKEY_free};
            REQUIRE(key);
            return key;
        }

        void addExtension(X509* certificate, X509* issuer, int nid, std::string const& value)
        {
            X509V3_CTX context;
            X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
            auto* extension = ::X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
            REQUIRE(extension != nullptr);
            ::X509_add_ext(certificate, extension, -1);
            ::X509_EXTENSION_free(extension);
        }

        // An empty `commonName` gives a subject of only an organisation.
        Certificate makeCertificate(std::string const& commonName, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuerKey,
                                    std::chrono::seconds validFrom, std::chrono::seconds validUntil)
        {
            static long serial = 1;
            Certificate certificate{::X509_new(), &::X509_free};
            ::X509_set_version(certificate.get(), 2);
            ::ASN1_INTEGER_set(::X509_get_serialNumber(certificate.get()), serial++);
            ::X509_gmtime_adj(::X509_getm_notBefore(certificate.get()), static_cast<long>(validFrom.count()));
            ::X509_gmtime_adj(::X509_getm_notAfter(certificate.get()), static_cast<long>(validUntil.count()));
            ::X509_set_pubkey(certificate.get(), key);
            auto* name = ::X509_get_subject_name(certificate.get());
            auto const* field = commonName.empty() ? "O" : "CN";
            auto const value = commonName.empty() ? std::string{"mxl tests"} : commonName;
            ::X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, reinterpret_cast<unsigned char const*>(value.c_str()), -1, -1, 0);
            ::X509_set_issuer_name(certificate.get(), issuer == nullptr ? name : ::X509_get_subject_name(issuer));
            if (issuer == nullptr)
            {
                addExtension(certificate.get(), certificate.get(), NID_basic_constraints, "critical,CA:TRUE");
                addExtension(certificate.get(), certificate.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
                addExtension(certificate.get(), certificate.get(), NID_subject_key_identifier, "hash");
            }
            REQUIRE(::X509_sign(certificate.get(), issuerKey, ::EVP_sha256()) > 0);
            return certificate;
        }

        void writeCertificates(std::filesystem::path const& path, std::vector<X509*> const& chain)
        {
            auto* file = std::fopen(path.c_str(), "w");
            REQUIRE(file != nullptr);
            for (auto* certificate : chain)
            {
                ::PEM_write_X509(file, certificate);
            }
            std::fclose(file);
        }

        void writeKey(std::filesystem::path const& path, EVP_PKEY* key)
        {
            auto* file = std::fopen(path.c_str(), "w");
            REQUIRE(file != nullptr);
            ::chmod(path.c_str(), 0600);
            ::PEM_write_PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr);
            std::fclose(file);
        }
    }

    struct TestCa::Authority
    {
        OwnedKey key = newKey();
        Certificate certificate{nullptr, &::X509_free};
    };

    TestCa::TestCa(std::filesystem::path directory, std::string name)
        : _directory{std::move(directory)}
        , _caFile{(_directory / (name + "-ca.pem")).string()}
        , _authority{std::make_unique<Authority>()}
    {
        _authority->certificate = makeCertificate(name + " test CA", _authority->key.get(), nullptr, _authority->key.get(),
                                                  std::chrono::hours{-1}, std::chrono::hours{48});
        writeCertificates(_caFile, {_authority->certificate.get()});
    }

    TestCa::~TestCa() = default;

    IssuedCertificate TestCa::issueWithoutCommonName(std::string const& name, std::vector<std::string> const& hosts) const
    {
        return issueAs(name, {}, hosts, std::chrono::hours{-1}, std::chrono::hours{24});
    }

    IssuedCertificate TestCa::issue(std::string const& name, std::vector<std::string> const& hosts, std::chrono::seconds validFrom,
                                    std::chrono::seconds validUntil) const
    {
        return issueAs(name, name, hosts, validFrom, validUntil);
    }

    IssuedCertificate TestCa::issueAs(std::string const& name, std::string const& commonName, std::vector<std::string> const& hosts,
                                      std::chrono::seconds validFrom, std::chrono::seconds validUntil) const
    {
        auto const key = newKey();
        auto const leaf =
            makeCertificate(commonName, key.get(), _authority->certificate.get(), _authority->key.get(), validFrom, validUntil);
        std::string alternatives;
        for (auto const& host : hosts)
        {
            in6_addr address{};
            auto const numeric = ::inet_pton(AF_INET, host.c_str(), &address) == 1 || ::inet_pton(AF_INET6, host.c_str(), &address) == 1;
            alternatives += fmt::format("{}{}:{}", alternatives.empty() ? "" : ",", numeric ? "IP" : "DNS", host);
        }
        // Extensions are added before signing: sign again with them.
        addExtension(leaf.get(), _authority->certificate.get(), NID_subject_alt_name, alternatives);
        addExtension(leaf.get(), _authority->certificate.get(), NID_ext_key_usage, "serverAuth,clientAuth");
        REQUIRE(::X509_sign(leaf.get(), _authority->key.get(), ::EVP_sha256()) > 0);
        IssuedCertificate issued{(_directory / (name + ".pem")).string(), (_directory / (name + ".key")).string()};
        writeCertificates(issued.certificate, {leaf.get(), _authority->certificate.get()});
        writeKey(issued.key, key.get());
        return issued;
    }
}
