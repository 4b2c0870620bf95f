// Key files: the documented format loads; loose permissions, short or malformed keys are refused naming the file.
#include <SigningKeys.hpp>

#include "TempDomain.hpp"

#include <doctest/doctest.h>

#include <fstream>

#include <sys/stat.h>

using namespace mxl::signing;

namespace
{
    // 32 bytes of 'k', base64.
    constexpr char const* secret = "a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=";

    std::filesystem::path keyFile(mxl::test::TempDomain const& directory, std::string const& text, mode_t mode)
    {
        auto const path = directory.path() / "ticket.key";
        std::ofstream{path} << text;
        ::chmod(path.c_str(), mode);
        return path;
    }
}

TEST_CASE("a key file with a current and a previous key loads")
{
    mxl::test::TempDomain const directory{"signing-keys"};
    auto const file = keyFile(directory,
                              std::string{R"({"id": "2026-11", "key": ")"} + secret + R"(", "previous": {"id": "2026-10", "key": ")" +
                                  secret + R"(", "accepted_until": "2026-12-01T00:00:00Z"}})",
                              0600);
    auto const keys = loadSigningKeys(file);
    CHECK(keys.current.id == "2026-11");
    CHECK(keys.current.secret == std::string(32, 'k'));
    REQUIRE(keys.previous.has_value());
    CHECK(keys.previous->id == "2026-10");
    CHECK(formatUtc(keys.previousAcceptedUntil) == "2026-12-01T00:00:00Z");
}

TEST_CASE("key files that are readable by others, short, malformed or missing are refused naming the file")
{
    mxl::test::TempDomain const directory{"signing-keys-bad"};
    auto const valid = std::string{R"({"id": "k", "key": ")"} + secret + R"("})";
    auto const path = (directory.path() / "ticket.key").string();

    CHECK_THROWS_WITH_AS(loadSigningKeys(keyFile(directory, valid, 0644)),
                         ("key file '" + path + "': it has mode 0644: a key must be readable by its owner only (chmod 600)").c_str(),
                         KeyFileError);
    CHECK_THROWS_WITH_AS(loadSigningKeys(keyFile(directory, valid, 0660)), doctest::Contains("has mode 0660"), KeyFileError);
    CHECK_THROWS_WITH_AS(
        loadSigningKeys(keyFile(directory, R"({"id": "k", "key": "c2hvcnQ="})", 0600)),
        ("key file '" + path + "': \"key\" holds 5 bytes; at least 32 are needed (head -c 32 /dev/urandom | base64)").c_str(),
        KeyFileError);
    CHECK_THROWS_WITH_AS(loadSigningKeys(keyFile(directory, "not json", 0600)),
                         ("key file '" + path + "' is not a JSON object with \"id\" and \"key\"").c_str(), KeyFileError);
    CHECK_THROWS_WITH_AS(loadSigningKeys(keyFile(directory, std::string{R"({"key": ")"} + secret + R"("})", 0600)),
                         doctest::Contains("\"id\" is missing or not a string"), KeyFileError);
    CHECK_THROWS_WITH_AS(
        loadSigningKeys(
            keyFile(directory, valid.substr(0, valid.size() - 1) + R"(, "previous": {"id": "p", "key": ")" + secret + R"("}})", 0600)),
        doctest::Contains("\"previous\".\"accepted_until\" must be a UTC time"), KeyFileError);
    CHECK_THROWS_WITH_AS(loadSigningKeys(directory.path() / "absent.key"), doctest::Contains("absent.key': No such file or directory"),
                         KeyFileError);
}

TEST_CASE("UTC times round-trip and malformed ones are refused")
{
    auto const time = parseUtc("2026-11-25T18:00:00Z");
    REQUIRE(time.has_value());
    CHECK(formatUtc(*time) == "2026-11-25T18:00:00Z");
    CHECK_FALSE(parseUtc("2026-11-25 18:00:00").has_value());
    CHECK_FALSE(parseUtc("2026-11-25T18:00:00+01:00").has_value());
    CHECK_FALSE(parseUtc("2026-11-25T18:00:00Zjunk").has_value());
}
