// <domain>/domain_def.json (BCP-007-03's mxl_domain_id): created whole with a stable id where absent, read where
// present, refused by file, field and value where unusable, and one id for processes that create it at once.
#include "TempDomain.hpp"

#include <DomainDefinition.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace mxl::nmos;
using mxl::test::readFile;
using mxl::test::TempDomain;

namespace
{
    void writeDefinition(std::filesystem::path const& domain, std::string const& text)
    {
        std::ofstream{domain / "domain_def.json"} << text;
    }

    std::string refusal(std::filesystem::path const& domain)
    {
        try
        {
            readOrCreateDomainDefinition(domain, "studio-a-rx1");
        }
        catch (DomainDefinitionError const& error)
        {
            return error.what();
        }
        return "accepted";
    }
}

TEST_CASE("a domain without domain_def.json gets one, whose id is the same for the same host and directory")
{
    TempDomain const domain{"domain-def"};
    auto const first = readOrCreateDomainDefinition(domain.path(), "studio-a-rx1");
    CHECK(first.created);
    CHECK(isMxlUuid(first.id));
    CHECK(first.label == domain.path().filename().string());
    auto const file = nlohmann::json::parse(readFile(domain.path() / "domain_def.json"));
    CHECK(file ==
          nlohmann::json{{"id", first.id}, {"label", first.label}, {"description", first.description}, {"tags", nlohmann::json::object()}});

    auto const again = readOrCreateDomainDefinition(domain.path(), "studio-a-rx1");
    CHECK_FALSE(again.created);
    CHECK(again.id == first.id);

    // A reboot empties tmpfs: the file made again has the same id.
    std::filesystem::remove(domain.path() / "domain_def.json");
    CHECK(readOrCreateDomainDefinition(domain.path(), "studio-a-rx1").id == first.id);
    // The same directory named through a link is the same domain.
    auto const link = std::filesystem::temp_directory_path() / ("mxl-domain-link-" + std::to_string(::getpid()));
    std::filesystem::create_directory_symlink(domain.path(), link);
    std::filesystem::remove(domain.path() / "domain_def.json");
    auto const throughLink = readOrCreateDomainDefinition(link, "studio-a-rx1");
    std::filesystem::remove(link);
    CHECK(throughLink.id == first.id);

    TempDomain const other{"domain-def-other"};
    CHECK(readOrCreateDomainDefinition(other.path(), "studio-a-rx1").id != first.id);
    std::filesystem::remove(other.path() / "domain_def.json");
    CHECK(readOrCreateDomainDefinition(other.path(), "studio-b-rx1").id != readOrCreateDomainDefinition(domain.path(), "studio-a-rx1").id);
    // Only the definition is left in the domain: nothing written aside remains.
    std::vector<std::string> names;
    for (auto const& entry : std::filesystem::directory_iterator{domain.path()})
    {
        names.push_back(entry.path().filename().string());
    }
    CHECK(names == std::vector<std::string>{"domain_def.json"});
}

TEST_CASE("an existing domain_def.json is read as it is, its id and more members kept")
{
    TempDomain const domain{"domain-def"};
    writeDefinition(domain.path(), R"({"id": "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a", "label": "Studio A", "description": "gallery",
                                      "tags": {"site": ["london"]}, "x_vendor": 7})");
    auto const definition = readOrCreateDomainDefinition(domain.path(), "studio-a-rx1");
    CHECK_FALSE(definition.created);
    CHECK(definition.id == "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a");
    CHECK(definition.label == "Studio A");
    CHECK(definition.description == "gallery");
    CHECK(definition.tags == nlohmann::json{{"site", {"london"}}});
    CHECK(nlohmann::json::parse(readFile(domain.path() / "domain_def.json"))["x_vendor"] == 7);
}

TEST_CASE("an unusable domain_def.json is refused naming the file, the field and the value, and is left as it is")
{
    TempDomain const domain{"domain-def"};
    auto const file = (domain.path() / "domain_def.json").string();
    struct Case
    {
        char const* text;
        char const* expected;
    };
    for (auto const& [text, expected] : std::vector<Case>{
             {"{", "is not JSON"},
             {"[]", "is array; expected a JSON object"},
             {R"({"label": "x"})", "has no \"id\""},
             {R"({"id": "0B4E8F2C-6F3A-4C1D-9E7B-3A5D2C1F0E9A"})",
              R"("id" is "0B4E8F2C-6F3A-4C1D-9E7B-3A5D2C1F0E9A"; expected a lowercase UUID)"},
             {R"({"id": 7})", R"("id" is 7; expected a lowercase UUID)"},
             {R"({"id": "0b4e8f2c-6f3a-0c1d-9e7b-3a5d2c1f0e9a"})", "expected a lowercase UUID"},
             {R"({"id": "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a", "label": 3})", R"("label" is 3; expected a string)"},
             {R"({"id": "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a", "tags": []})", R"("tags" is []; expected a JSON object)"},
         })
    {
        writeDefinition(domain.path(), text);
        auto const why = refusal(domain.path());
        INFO(text, " -> ", why);
        CHECK(why.find(file) != std::string::npos);
        CHECK(why.find(expected) != std::string::npos);
        CHECK(readFile(domain.path() / "domain_def.json") == text);
    }
    std::filesystem::remove(domain.path() / "domain_def.json");
    std::filesystem::create_directory(domain.path() / "domain_def.json");
    CHECK(refusal(domain.path()).find("not a regular file") != std::string::npos);
    CHECK(refusal(domain.path() / "absent").find("absent") != std::string::npos);
}

TEST_CASE("processes creating domain_def.json at once all get the one id, and the file is whole")
{
    TempDomain const domain{"domain-def"};
    std::vector<int> pipes;
    std::vector<pid_t> children;
    for (int child = 0; child < 8; ++child)
    {
        int ends[2];
        REQUIRE(::pipe(ends) == 0);
        auto const pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0)
        {
            ::close(ends[0]);
            std::string id;
            try
            {
                id = readOrCreateDomainDefinition(domain.path(), "studio-a-rx1").id;
            }
            catch (std::exception const& error)
            {
                id = error.what();
            }
            auto const written = ::write(ends[1], id.data(), id.size());
            ::_exit(written == static_cast<ssize_t>(id.size()) ? 0 : 1);
        }
        ::close(ends[1]);
        pipes.push_back(ends[0]);
        children.push_back(pid);
    }
    std::set<std::string> ids;
    for (std::size_t child = 0; child < children.size(); ++child)
    {
        std::string id(200, '\0');
        auto const count = ::read(pipes[child], id.data(), id.size());
        ::close(pipes[child]);
        int status = 0;
        ::waitpid(children[child], &status, 0);
        CHECK(WIFEXITED(status));
        id.resize(count > 0 ? static_cast<std::size_t>(count) : 0);
        ids.insert(id);
    }
    REQUIRE(ids.size() == 1);
    CHECK(isMxlUuid(*ids.begin()));
    CHECK(nlohmann::json::parse(readFile(domain.path() / "domain_def.json"))["id"] == *ids.begin());
}
