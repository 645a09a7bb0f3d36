// Typed terms in ConfigSpace and KernelDef: they select, size and compile exactly what
// the same expressions given as text do, survive the capture's JSON round trip, and
// report errors at the definition.
#include "runtime/config_space.h"
#include "runtime/kernel_def.h"

#include "test_kernels.h"
#include "traverse_defs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>

using namespace squall::rt;
using namespace squall::rt::testing;

namespace {

ConfigSpace small_params() {
    ConfigSpace s;
    s.add_param("bx", {16, 32, 64, 128, 256, 512}, 32);
    s.add_param("by", {1, 2, 4, 8}, 1);
    s.add_param("tile", {1, 2, 3, 4}, 1);
    s.add_param("order", {"xyz", "zyx"}, "xyz");
    s.add_param("unroll", {false, true}, false);
    return s;
}

const ProblemSize problems[] = {ProblemSize(512), ProblemSize(96), ProblemSize(7),
                                ProblemSize(256, 130, 90)};

// What a definition decides for one configuration: validity, then geometry, tensor maps
// and the program NVRTC would compile (or that geometry refused it).
struct Decision {
    bool valid = false, launchable = false;
    LaunchGeometry g;
    std::vector<TensorMapSpec> maps;
    std::string program, name;
};
Decision decide(const KernelDef& d, const Config& c, const ProblemSize& p, const DeviceInfo& dev) {
    Decision r;
    r.valid = d.space().is_valid(c, p, dev);
    if (!r.valid) return r;
    try {
        r.g = d.geometry(c, p, dev);
    } catch (const std::invalid_argument&) {
        return r;
    }
    r.launchable = true;
    r.maps = d.tensor_maps(c, p, dev);
    const CompileSpec s = d.compile_spec(c, p, dev, dev.arch());
    r.program = s.program, r.name = s.name_expression;
    return r;
}
void expect_same(const Decision& a, const Decision& b, const std::string& what) {
    ASSERT_EQ(a.valid, b.valid) << what;
    ASSERT_EQ(a.launchable, b.launchable) << what;
    EXPECT_EQ(a.g.grid, b.g.grid) << what;
    EXPECT_EQ(a.g.block, b.g.block) << what;
    EXPECT_EQ(a.g.shared_mem, b.g.shared_mem) << what;
    EXPECT_EQ(a.g.carveout, b.g.carveout) << what;
    ASSERT_EQ(a.maps.size(), b.maps.size()) << what;
    for (size_t i = 0; i < a.maps.size(); ++i) {
        EXPECT_EQ(a.maps[i].arg, b.maps[i].arg) << what;
        EXPECT_EQ(a.maps[i].box, b.maps[i].box) << what;
    }
    EXPECT_EQ(a.program, b.program) << what;
    EXPECT_EQ(a.name, b.name) << what;
}

// Parameter values forced onto samples, to reach corners of a space that uniform
// samples almost never visit (the traversal's staging and planes strategies).
using Overrides = std::vector<std::vector<std::pair<std::string, Value>>>;

// Both definitions decide alike on valid samples of either space (also with each set of
// overrides applied) and on every configuration one parameter away from those, which
// lie on the restrictions' boundaries; and they enumerate the same prefix.
void expect_same_decisions(const KernelDef& a, const KernelDef& b, int samples,
                           const Overrides& overrides = {}) {
    ASSERT_EQ(a.space().raw_size(), b.space().raw_size());
    const auto& params = a.space().params();
    std::mt19937_64 rng(42);
    int launchable = 0, invalid = 0;
    for (const DeviceInfo& dev : {DeviceInfo::for_arch("sm_90"), DeviceInfo::for_arch("sm_80")}) {
        for (const ProblemSize& p : problems) {
            for (int i = 0; i < samples; ++i) {
                const std::optional<Config> c = (i % 2 ? a : b).space().sample(rng, p, dev);
                if (!c) { // an empty space (saxpy at problem 7): empty for both
                    EXPECT_FALSE((i % 2 ? b : a).space().sample(rng, p, dev).has_value());
                    continue;
                }
                std::vector<Config> bases{*c};
                for (const auto& set : overrides) {
                    bases.push_back(*c);
                    for (const auto& [name, v] : set)
                        bases.back().values[size_t(a.space().param_index(name))] = v;
                }
                for (const Config& base : bases) {
                    std::vector<Config> near{base};
                    for (size_t k = 0; k < params.size(); ++k)
                        for (const Value& v : params[k].values) {
                            near.push_back(base);
                            near.back().values[k] = v;
                        }
                    for (const Config& n : near) {
                        const Decision da = decide(a, n, p, dev), db = decide(b, n, p, dev);
                        expect_same(da, db, a.space().format(n) + " for " + p.to_string());
                        launchable += da.launchable;
                        invalid += !da.valid;
                    }
                }
            }
            EXPECT_EQ(a.space().enumerate(p, dev, 3000), b.space().enumerate(p, dev, 3000));
        }
    }
    // The comparison covered both verdicts, geometry and programs.
    EXPECT_GT(launchable, samples);
    EXPECT_GT(invalid, samples);
}

// Bases on which the traversal's staging and planes strategies are valid.
const Overrides traversal_corners = {{{"stage", 1},
                                      {"block_z", 1},
                                      {"tile_z", 1},
                                      {"march_y", 1},
                                      {"march_z", 1},
                                      {"defer", 1},
                                      {"unroll", 1},
                                      {"l1_carveout", -1},
                                      {"planes", 0}},
                                     {{"planes", 1},
                                      {"block_z", 1},
                                      {"tile_x", 1},
                                      {"tile_z", 1},
                                      {"march_y", 1},
                                      {"march_z", 1},
                                      {"stage", 0},
                                      {"defer", 0},
                                      {"tile_y", 1},
                                      {"stage_fill", 0},
                                      {"stage_levels", 64},
                                      {"stage_depth", 2},
                                      {"block_x", 64},
                                      {"block_y", 2}}};

} // namespace

TEST(TermDefs, RestrictionsFilterASpaceLikeTheirText) {
    ConfigSpace text = small_params(), typed = small_params();
    text.add_restriction("bx * by >= 64");
    text.add_restriction("bx * by <= device.max_threads_per_block / 2");
    text.add_restriction("problem.x % (bx * tile) == 0 || order == 'zyx'");
    text.add_restriction("!unroll || tile > 1");
    typed.add_restriction(P("bx") * P("by") >= 64);
    typed.add_restriction(P("bx") * P("by") <= device("max_threads_per_block") / 2);
    typed.add_restriction(problem_x() % (P("bx") * P("tile")) == 0 || P("order") == str("zyx"));
    typed.add_restriction(!P("unroll") || P("tile") > 1);
    for (size_t i = 0; i < text.restrictions().size(); ++i) {
        EXPECT_EQ(typed.restrictions()[i].text(), text.restrictions()[i].text());
        EXPECT_EQ(typed.restrictions()[i].slots_used(), text.restrictions()[i].slots_used());
    }
    EXPECT_EQ(typed.to_json(), text.to_json());
    DeviceInfo small;
    small.max_threads_per_block = 256;
    for (const DeviceInfo& d : {DeviceInfo{}, small}) {
        for (const ProblemSize& p : problems) {
            EXPECT_EQ(typed.enumerate(p, d), text.enumerate(p, d)) << p.to_string();
            EXPECT_GT(typed.count_valid(p, d), 0u);
            std::mt19937_64 r1(5), r2(5);
            for (int i = 0; i < 50; ++i) EXPECT_EQ(typed.sample(r1, p, d), text.sample(r2, p, d));
        }
    }
}

TEST(TermDefs, RestrictionMustBeACondition) {
    ConfigSpace s = small_params();
    try {
        s.add_restriction(P("bx") * P("by"));
        FAIL() << "expected ExprError";
    } catch (const ExprError& e) {
        EXPECT_STREQ(e.what(), "restriction 'bx * by' is an int, not a condition (compare it, "
                               "e.g. '(bx * by) != 0')");
    }
    EXPECT_EQ(s.restrictions().size(), 0u);
    s.add_restriction(P("unroll")); // a bool parameter is a condition
    s.add_restriction(Term(true));
    EXPECT_EQ(s.restrictions().size(), 2u);
}

TEST(TermDefs, TestKernelsMatchTheirTextDefinitions) {
    for (const std::string type : {"float", "double"}) {
        const KernelDef text = saxpy_def(type);
        const KernelDef typed =
            KernelDef("saxpy", squall::embedded::runtime_test_sources(),
                      "tests/runtime/kernels/saxpy.cu")
                .tuning_key("saxpy", type)
                .tune("block_x", {32, 64, 128, 256, 512, 1024}, 256)
                .tune("items", {1, 2, 4, 8}, 1)
                .tune("min_blocks", {1, 2, 4}, 1)
                .restriction(P("block_x") * P("min_blocks") <=
                             device("max_threads_per_multiprocessor"))
                .restriction(P("block_x") * P("items") <= 4 * problem_x())
                .template_args(type, P("items"))
                .define("EXTRA_OFFSET", 1)
                .block_size(P("block_x"))
                .grid_divisors(P("block_x") * P("items"))
                .launch_bounds(P("block_x"), P("min_blocks"))
                .arg_scalar("n", DType::i32)
                .arg_scalar("a", type == "float" ? DType::f32 : DType::f64)
                .arg_array("x", type == "float" ? DType::f32 : DType::f64, Access::in, "n")
                .arg_array("y", type == "float" ? DType::f32 : DType::f64, Access::inout, "n");
        // The capture stores the same definition whichever way it was written.
        EXPECT_EQ(typed.to_json(false), text.to_json(false));
        expect_same_decisions(typed, text, 10);
    }
    const KernelDef typed_stencil =
        KernelDef("stencil3d", squall::embedded::runtime_test_sources(), "stencil3d.cu")
            .tuning_key("stencil3d", "double")
            .tune("block_x", {16, 32, 64, 128}, 32)
            .tune("block_y", {1, 2, 4, 8}, 4)
            .tune("block_z", {1, 2, 4}, 1)
            .tune("tile_z", {1, 2, 4}, 1)
            .restriction(P("block_x") * P("block_y") * P("block_z") >= 64)
            .restriction(P("block_x") * P("block_y") * P("block_z") <= 1024)
            .template_args("double")
            .define("NX", problem_x())
            .define("NY", problem_y())
            .define("NZ", problem_z())
            .define("TILE_Z", P("tile_z"))
            .block_size(P("block_x"), P("block_y"), P("block_z"))
            .grid_divisors(P("block_x"), P("block_y"), P("block_z") * P("tile_z"));
    EXPECT_EQ(typed_stencil.to_json(false), stencil_def("double").to_json(false));
}

TEST(TermDefs, TraversalDecidesLikeItsTextDefinition) {
    const TraverseShape shape;
    const KernelDef text = traverse_def_text(shape), typed = traverse_def_typed(shape);
    ASSERT_EQ(typed.space().restrictions().size(), text.space().restrictions().size());
    expect_same_decisions(typed, text, 20, traversal_corners);
}

// A capture stores the definition as JSON text; replay parses it back with the text
// path, which must decide exactly as the typed definition did.
TEST(TermDefs, CaptureRoundTripOfATypedDefinition) {
    const KernelDef typed = traverse_def_typed(TraverseShape{});
    const nlohmann::json j = typed.to_json();
    const KernelDef replayed = KernelDef::from_json(nlohmann::json::parse(j.dump()));
    EXPECT_EQ(replayed.to_json(), j);
    expect_same_decisions(typed, replayed, 20, traversal_corners);
}

TEST(TermDefs, DefinitionErrorsNameTheKernel) {
    auto def = [] {
        return KernelDef("saxpy", squall::embedded::runtime_test_sources(),
                         "tests/runtime/kernels/saxpy.cu")
            .tuning_key("saxpy", "float")
            .tune("block_x", {32, 64}, 32)
            .tune("order", {"xyz", "zyx"}, "xyz");
    };
    auto message = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const ExprError& e) {
            return e.what();
        }
        return "(no error)";
    };
    EXPECT_EQ(message([&] { def().restriction(P("blok_x") <= 64); }),
              "kernel 'saxpy_float': expression 'blok_x <= 64', in 'blok_x': unknown name "
              "'blok_x' (parameters declared so far: block_x, order)");
    EXPECT_EQ(message([&] { def().restriction(P("block_x") * 2); }),
              "kernel 'saxpy_float': restriction 'block_x * 2' is an int, not a condition "
              "(compare it, e.g. '(block_x * 2) != 0')");
    EXPECT_EQ(message([&] { def().block_size(P("block_x") < 64); }),
              "kernel 'saxpy_float': block size 'block_x < 64' is a bool, not an int");
    EXPECT_EQ(message([&] { def().shared_memory(to_float(P("block_x")) * 8); }),
              "kernel 'saxpy_float': shared memory size 'float(block_x) * 8' is a float, not an "
              "int");
    EXPECT_EQ(message([&] { def().define("ORDER", P("order") + 1); }),
              "kernel 'saxpy_float': define: expression 'order + 1': '+' needs a number, but "
              "'order' is a string");
    EXPECT_EQ(message([&] { def().grid_size(ceil_div(problem_x(), P("tile"))); }),
              "kernel 'saxpy_float': grid size: expression 'ceil_div(problem.x, tile)', in "
              "'tile': unknown name 'tile' (parameters declared so far: block_x, order)");
    // A string define and a bool tensor-map condition are fine.
    EXPECT_EQ(message([&] { def().define("ORDER", P("order")); }), "(no error)");
    EXPECT_EQ(message([&] {
                  def()
                      .arg_array("x", DType::f32, Access::in, "n")
                      .tensor_map("x", 0, {64, 1, 1}, {P("block_x"), 1, 1}, P("block_x") > 32);
              }),
              "(no error)");
}
