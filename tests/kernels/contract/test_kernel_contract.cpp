// Every kernel of kernels/ meets sq::Kernel (kernels/kernel.cuh), also those no launch in
// this build instantiates, and every kernel a header defines is in that header's
// KernelList, from which the tests and benchmarks take their lists.
#include "kernels/kernel.cuh"
#include "kernels/pressure_spectral.cuh"
#include "kernels/vorticity.cuh"
#include "tests/support/all_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

template <template <class> class... K>
constexpr bool all_meet_contract(sq::KernelList<K...>) {
    return ((sq::check_kernel<K<float>>() && sq::check_kernel<K<double>>()) && ...);
}
static_assert(all_meet_contract(squall::testing::AllKernels{}));
static_assert(all_meet_contract(sq::PressureSpectralKernels{}));
static_assert(all_meet_contract(sq::VorticityKernels{}));
// The checks of the optional sets are not vacuous: kernels that have them pass them.
static_assert(requires { sq::AdvecU2i5<double>::plane_inputs; } &&
              sq::contract::PlanesComplete<sq::AdvecU2i5<double>> &&
              sq::contract::PlanesComplete<sq::TendUVW2i5Smag<float>>);
static_assert(requires(const sq::AdvecS2i5<float>& f) { f.flux_x(0, 0, 0); } &&
              sq::contract::FacesComplete<sq::AdvecS2i5<float>>);
static_assert(requires { typename sq::TendUVW2i5Smag<double>::ZFaces; } &&
              sq::contract::CarryComplete<sq::TendUVW2i5Smag<double>> &&
              sq::contract::CarryComplete<sq::TendS2i5Smag<float>>);
static_assert(requires(const sq::DiffUVWSmag<double>& f) { f.value(0, 0, 0); } &&
              sq::contract::SplitComplete<sq::DiffUVWSmag<double>>);
static_assert(sq::contract::Reduction<sq::ValueDz<double>> &&
              !sq::contract::Reduction<sq::AdvecU2<double>>);

// The kernels a header defines: the names its structs' `name` definitions spell out (one
// per struct, or one per staggering where a template chooses among several).
int defined_in(const std::string& header) {
    std::ifstream in(std::string(SQUALL_SOURCE_DIR) + "/kernels/" + header);
    EXPECT_TRUE(in) << header;
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str(), key = "static constexpr const char* name =";
    int n = 0;
    for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + 1)) {
        const size_t end = s.find(';', at);
        n += int(std::count(s.begin() + long(at), s.begin() + long(end), '"')) / 2;
    }
    return n;
}

TEST(KernelContract, EveryKernelIsInItsHeadersList) {
    const std::set<std::string> listed = {"advec.cuh",   "boundary.cuh",   "diagnostics.cuh",
                                          "diff.cuh",    "diff_fused.cuh", "forcing.cuh",
                                          "halo.cuh",    "pressure.cuh",   "pressure_spectral.cuh",
                                          "surface.cuh", "tend_fused.cuh", "thermo.cuh",
                                          "timeint.cuh", "vorticity.cuh"};
    // A new header with kernels joins the table below.
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(SQUALL_SOURCE_DIR) + "/kernels")) {
        const std::string header = e.path().filename().string();
        if (e.path().extension() == ".cuh" && defined_in(header) > 0) {
            EXPECT_TRUE(listed.count(header)) << header << " defines kernels but has no row here";
        }
    }
    EXPECT_EQ(defined_in("advec.cuh"), squall::testing::list_size(sq::AdvecKernels{}));
    EXPECT_EQ(defined_in("boundary.cuh"), squall::testing::list_size(sq::BoundaryKernels{}));
    EXPECT_EQ(defined_in("diagnostics.cuh"), squall::testing::list_size(sq::DiagnosticKernels{}));
    EXPECT_EQ(defined_in("diff.cuh"), squall::testing::list_size(sq::DiffKernels{}));
    EXPECT_EQ(defined_in("diff_fused.cuh"), squall::testing::list_size(sq::DiffFusedKernels{}));
    EXPECT_EQ(defined_in("forcing.cuh"), squall::testing::list_size(sq::ForcingKernels{}));
    EXPECT_EQ(defined_in("halo.cuh"), squall::testing::list_size(sq::HaloKernels{}));
    EXPECT_EQ(defined_in("pressure.cuh"), squall::testing::list_size(sq::PressureKernels{}));
    EXPECT_EQ(defined_in("pressure_spectral.cuh"),
              squall::testing::list_size(sq::PressureSpectralKernels{}));
    EXPECT_EQ(defined_in("surface.cuh"), squall::testing::list_size(sq::SurfaceKernels{}));
    EXPECT_EQ(defined_in("tend_fused.cuh"), squall::testing::list_size(sq::TendFusedKernels{}));
    EXPECT_EQ(defined_in("thermo.cuh"), squall::testing::list_size(sq::ThermoKernels{}));
    EXPECT_EQ(defined_in("timeint.cuh"), squall::testing::list_size(sq::TimeintKernels{}));
    EXPECT_EQ(defined_in("vorticity.cuh"), squall::testing::list_size(sq::VorticityKernels{}));
}

} // namespace
