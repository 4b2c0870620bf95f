// The proof of the ticket key an initiator sends with its connection request: it verifies for its target's id and
// epoch only, with the current key or the previous one in its grace period, and every other request is refused by name.
#include <AdmissionProof.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace mxl::signing;
using Clock = std::chrono::system_clock;
using namespace std::chrono_literals;

namespace
{
    constexpr std::uint64_t targetId = 8824839989244341056ULL;
    constexpr std::uint64_t epoch = 17320327264041630736ULL;
    Clock::time_point const proofNow = Clock::from_time_t(1'795'600'000);

    SigningKey proofKey(std::string id, char fill)
    {
        return SigningKey{std::move(id), std::string(32, fill)};
    }

    SigningKeys rotated()
    {
        return SigningKeys{proofKey("2026-12", 'b'), proofKey("2026-11", 'a'), proofNow + 24h};
    }
}

TEST_CASE("admission proof: made with the current key for the target's id and epoch, it verifies, and padding after it is ignored")
{
    auto proof = admissionProof(rotated().current, targetId, epoch);
    CHECK(proof.size() == 4 + 2 + 7 + 32);
    CHECK(admissionProblem(rotated(), proof, targetId, epoch, proofNow).empty());
    proof.resize(proof.size() + 19, 0);
    CHECK(admissionProblem(rotated(), proof, targetId, epoch, proofNow).empty());
}

TEST_CASE("admission proof: the previous key verifies until its accepted_until, then is refused by name")
{
    auto const proof = admissionProof(proofKey("2026-11", 'a'), targetId, epoch);
    CHECK(admissionProblem(rotated(), proof, targetId, epoch, proofNow).empty());
    CHECK(admissionProblem(rotated(), proof, targetId, epoch, proofNow + 25h) ==
          "its proof is made with key '2026-11', accepted only until " + formatUtc(proofNow + 24h));
}

TEST_CASE("admission proof: another target, another epoch, another secret or key id, no proof and a cut proof are refused")
{
    auto const proof = admissionProof(rotated().current, targetId, epoch);
    auto const forged = std::string{"its proof with key '2026-12' does not verify: another secret under that id, or a proof for another "
                                    "target or epoch"};
    CHECK(admissionProblem(rotated(), proof, targetId + 1, epoch, proofNow) == forged);
    CHECK(admissionProblem(rotated(), proof, targetId, epoch + 1, proofNow) == forged);
    CHECK(admissionProblem(rotated(), admissionProof(proofKey("2026-12", 'x'), targetId, epoch), targetId, epoch, proofNow) == forged);
    CHECK(admissionProblem(rotated(), admissionProof(proofKey("studio-b", 'b'), targetId, epoch), targetId, epoch, proofNow) ==
          "its proof is made with key 'studio-b', which is not this target's key '2026-12'");
    CHECK(admissionProblem(rotated(), {}, targetId, epoch, proofNow) == "its connection request carries no proof of the ticket key");
    std::vector<std::uint8_t> const sdkStyle{0};
    CHECK(admissionProblem(rotated(), sdkStyle, targetId, epoch, proofNow) == "its connection request carries no proof of the ticket key");
    auto cut = proof;
    cut.resize(cut.size() - 1);
    CHECK(admissionProblem(rotated(), cut, targetId, epoch, proofNow) == "its proof of the ticket key is cut short");
    auto otherVersion = proof;
    otherVersion[4] = 2;
    CHECK(admissionProblem(rotated(), otherVersion, targetId, epoch, proofNow) == "its proof of the ticket key is of version 2, not 1");
}
