#include <common/BoundedJson.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>

namespace mxl
{
    TEST_CASE("bounded JSON: documents within the limits parse to the same value as nlohmann's parser")
    {
        auto const text = std::string{R"({"a":[1,2,{"b":"c"}],"d":null,"e":1.5})"};
        auto const parsed = parseBoundedJson(text);
        REQUIRE(parsed.ok());
        CHECK(parsed.value == nlohmann::json::parse(text));
        CHECK(parsed.value["a"][2]["b"] == "c");
    }

    TEST_CASE("bounded JSON: nesting past the depth limit is refused without recursion, at any depth")
    {
        for (std::size_t const depth : {65UL, 1000UL, 1'000'000UL})
        {
            auto const text = std::string(depth, '[') + std::string(depth, ']');
            auto const parsed = parseBoundedJson(text, {64 * 1024 * 1024, 64});
            CHECK_FALSE(parsed.ok());
            CHECK(parsed.problem == "the document nests deeper than 64 levels");
            CHECK(parseJsonOrDiscarded(text, {64 * 1024 * 1024, 64}).is_discarded());
        }
        // 64 levels exactly are accepted, empty or holding values and keys.
        CHECK(parseBoundedJson(std::string(64, '[') + std::string(64, ']')).ok());
        CHECK(parseBoundedJson(std::string(64, '[') + "1, \"two\", {}" + std::string(64, ']')).problem ==
              "the document nests deeper than 64 levels");
        CHECK(parseBoundedJson(std::string(63, '[') + "{\"k\": 1}" + std::string(63, ']')).ok());
        CHECK(parseBoundedJson(std::string(64, '[') + "1, \"two\"" + std::string(64, ']')).ok());
        std::string objects;
        for (int i = 0; i < 70; ++i)
        {
            objects += "{\"k\":";
        }
        objects += "0" + std::string(70, '}');
        CHECK(parseBoundedJson(objects).problem == "the document nests deeper than 64 levels");
    }

    TEST_CASE("bounded JSON: a document over the size limit is refused naming both sizes")
    {
        auto const text = "\"" + std::string(2000, 'x') + "\"";
        auto const parsed = parseBoundedJson(text, {1000, 64});
        CHECK(parsed.problem == "the document is 2002 bytes, more than the 1000 accepted");
        CHECK(parseBoundedJson(text, {2002, 64}).ok());
    }

    TEST_CASE("bounded JSON: syntax errors, invalid UTF-8 and out-of-range numbers are problems, not exceptions")
    {
        CHECK(parseBoundedJson("{\"a\":").problem.find("syntax error") != std::string::npos);
        CHECK(parseBoundedJson("\"\xff\xfe\"").problem.find("syntax error") != std::string::npos);
        CHECK(parseBoundedJson("1e999").problem.find("number overflow") != std::string::npos);
        CHECK(parseBoundedJson("").problem.find("syntax error") != std::string::npos);
        CHECK(parseBoundedJson(std::string{"{\"a\":1}\0", 8}).problem.find("syntax error") != std::string::npos);
    }

    TEST_CASE("bounded JSON: a key given twice in one object is refused, naming the key, at any depth")
    {
        CHECK(parseBoundedJson(R"({"format":"urn:x-nmos:format:video","format":"urn:x-nmos:format:audio"})").problem ==
              R"(the key "format" stands twice in one object)");
        CHECK(parseBoundedJson(R"({"a":[{"b":1},{"c":2,"c":3}]})").problem == R"(the key "c" stands twice in one object)");
        CHECK(parseJsonOrDiscarded(R"({"a":{"b":1,"b":1}})").is_discarded());
        // The same key in sibling or nested objects is no duplicate.
        auto const parsed = parseBoundedJson(R"({"a":{"a":1},"b":[{"a":2},{"a":3}],"c":{"d":{"a":4}}})");
        REQUIRE(parsed.ok());
        CHECK(parsed.value["b"][1]["a"] == 3);
        CHECK(parsed.value["c"]["d"]["a"] == 4);
    }

    TEST_CASE("bounded JSON: a 1 MiB array of empty objects is checked in a time of the order of nlohmann's own parse")
    {
        // Limits checked in a parser callback cost a walk of the parent array at the end of every object: quadratic,
        // about a minute for this document, against a few tens of milliseconds for the parse itself.
        std::string text = "[{}";
        while (text.size() < 1'000'000)
        {
            text += ",{}";
        }
        text += "]";
        auto const fastestOfThree = [](auto const& parse)
        {
            auto best = std::chrono::steady_clock::duration::max();
            for (int run = 0; run < 3; ++run)
            {
                auto const start = std::chrono::steady_clock::now();
                parse();
                best = std::min(best, std::chrono::steady_clock::now() - start);
            }
            return std::chrono::duration<double>(best).count();
        };
        std::size_t bounded = 0;
        std::size_t plain = 0;
        auto const boundedSeconds = fastestOfThree([&] { bounded = parseBoundedJson(text).value.size(); });
        auto const plainSeconds = fastestOfThree([&] { plain = nlohmann::json::parse(text).size(); });
        CHECK(bounded == 333'334);
        CHECK(plain == bounded);
        INFO("bounded ", boundedSeconds, " s, nlohmann alone ", plainSeconds, " s");
        CHECK(boundedSeconds < 10 * plainSeconds);
    }

    TEST_CASE("bounded JSON: dumpJson writes strings that are not UTF-8 with U+FFFD, quoteJson cuts long values")
    {
        nlohmann::json const document{{"path", std::string{"/x/\xff\xfe/y"}}};
        CHECK_THROWS(document.dump());
        CHECK(dumpJson(document) == "{\"path\":\"/x/\xef\xbf\xbd\xef\xbf\xbd/y\"}");
        auto const quoted = quoteJson(nlohmann::json(std::string(500, 'a')), 20);
        CHECK(quoted == "\"aaaaaaaaaaaaaaaaaaa...");
        CHECK(quoteJson(nlohmann::json(7)) == "7");
    }
}
