// gst-inspect-1.0 describes every property of both elements with a sentence and the caps of data flows,
// docs/gstreamer.md names each of them, and both elements offer the TAI clock.
#include "GstHarness.hpp"
#include "Process.hpp"
#include "TempDomain.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>

using namespace mxl::test;
using namespace mxl::test::gst;

namespace
{
    // The properties the element itself adds (not those of GstBaseSink or GstBaseSrc).
    std::vector<std::string> ownProperties(char const* element)
    {
        auto* const instance = gst_element_factory_make(element, nullptr);
        REQUIRE(instance != nullptr);
        guint count = 0;
        auto** const specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(instance), &count);
        std::vector<std::string> names;
        for (guint i = 0; i < count; ++i)
        {
            if (specs[i]->owner_type == G_OBJECT_TYPE(instance))
            {
                names.emplace_back(specs[i]->name);
            }
        }
        g_free(specs);
        gst_object_unref(instance);
        return names;
    }

    void checkDocumented(char const* element, std::size_t expectedCount)
    {
        initGstreamer();
        INFO("gst-inspect-1.0 at \"" MXL_GST_INSPECT "\" (package gstreamer1.0-tools, scripts/install-deps.sh)");
        REQUIRE(std::string{MXL_GST_INSPECT}.find("NOTFOUND") == std::string::npos);
        std::string_view const preload{MXL_GST_INSPECT_PRELOAD};
        auto const* const asanOptions = std::getenv("ASAN_OPTIONS");
        std::string const savedAsanOptions = asanOptions != nullptr ? asanOptions : "";
        if (!preload.empty())
        {
            // Only our plugin is instrumented in gst-inspect-1.0: its own allocations are not ours to check for leaks.
            ::setenv("LD_PRELOAD", MXL_GST_INSPECT_PRELOAD, 1);
            ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
        }
        Process inspect{{MXL_GST_INSPECT, element}};
        if (!preload.empty())
        {
            ::unsetenv("LD_PRELOAD");
            ::setenv("ASAN_OPTIONS", savedAsanOptions.c_str(), 1);
        }
        auto const output = inspect.drainOutput(std::chrono::seconds{60});
        REQUIRE(inspect.wait(std::chrono::seconds{60}) == 0);
        CHECK(output.find("element provides a clock: mxl-tai-clock") != std::string::npos);
        // The pad template names the caps of data flows, which docs/gstreamer.md explains.
        CHECK(output.find("meta/x-mxl-rfc8331") != std::string::npos);

        auto const docs = readFile(sourcePath("docs/gstreamer.md"));
        auto const properties = ownProperties(element);
        CHECK(properties.size() == expectedCount);
        for (auto const& property : properties)
        {
            INFO("property ", property, " of ", element);
            // "  name   : A sentence of at least three words", as gst-inspect prints a property with its blurb.
            std::regex const documented{"\n  " + property + " +: [A-Z][^\n ]* [^\n ]+ [^\n]+\n"};
            CHECK(std::regex_search(output, documented));
            CHECK(docs.find("`" + property + "`") != std::string::npos);
        }
        CHECK(docs.find("`meta/x-mxl-rfc8331") != std::string::npos);
    }
}

TEST_CASE("gst-inspect-1.0 mxlsink documents every property")
{
    checkDocumented("mxlsink", 10);
}

TEST_CASE("gst-inspect-1.0 mxlsrc documents every property")
{
    checkDocumented("mxlsrc", 11);
}
