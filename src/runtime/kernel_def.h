// KernelDef: everything needed to compile and launch one tunable kernel, built with
// chained calls at the place where the kernel is used. Expressions are typed terms
// (term.h):
//
//   auto def = KernelDef("advec_u", sources, "kernels/advec.cuh")
//                  .tuning_key("advec_u", "double")
//                  .tune("block_x", {32, 64, 128, 256}, 128)
//                  .tune("block_y", {1, 2, 4, 8}, 1)
//                  .restriction(P("block_x") * P("block_y") <= 1024)
//                  .template_args("double", P("block_x"), P("block_y"))
//                  .define("NGHOST", 3)
//                  .block_size(P("block_x"), P("block_y"))
//                  .launch_bounds(P("block_x") * P("block_y"), 2);
//
// Every call that takes a term also takes the expression as text ("block_x * block_y
// <= 1024", expr("block_x")): the text path, which from_json uses to read a capture
// back. A term is stored as its text form, so to_json writes the same either way.
//
// Parameters must be declared before the expressions that use them; every expression
// is compiled on the spot, so a typo or a type error (a restriction that is not a
// condition, a float block size) throws ExprError at the definition, not at launch.
// Expressions see the parameters, problem.x/y/z and device.* (see device_info.h).
#pragma once

#include "runtime/config_space.h"
#include "runtime/device_info.h"
#include "runtime/expr.h"
#include "runtime/sources.h"
#include "runtime/term.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace squall::rt {

// Marks a template argument or define value as an expression rather than verbatim text.
struct ExprText {
    std::string text;
};
inline ExprText expr(std::string text) {
    return {std::move(text)};
}

// Verbatim text ("double") or an expression (P("block_x"), or expr("block_x") as text).
struct TextOrExpr {
    bool is_expr = false;
    std::string text; // the verbatim text, or the expression's text form
    Term term;        // the typed expression, when given as one
    TextOrExpr(const char* t) : text(t) {}
    TextOrExpr(std::string t) : text(std::move(t)) {}
    TextOrExpr(ExprText e) : is_expr(true), text(std::move(e.text)) {}
    TextOrExpr(Term t) : is_expr(true), text(t.to_string()), term(std::move(t)) {}
    TextOrExpr(int v) : text(std::to_string(v)) {}
    TextOrExpr(long long v) : text(std::to_string(v)) {}
};

// Kernel argument description, needed for capture (array sizes and directions).
enum class DType : uint8_t { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 };
enum class Access : uint8_t { in, out, inout };
// An output array of per-block partial results (a reduction's first pass): its first
// grid-size entries are combined by the second pass, so only their sum or maximum is
// comparable across configurations.
enum class Partials : uint8_t { none, sum, max };
size_t dtype_size(DType t);
const char* dtype_name(DType t);
DType dtype_from_name(const std::string& name); // throws std::invalid_argument
const char* access_name(Access a);
Access access_from_name(const std::string& name);

// The whole device allocation a pointer lies in, as an array count (see ArgDef::count).
inline constexpr const char* whole_allocation = "*";

struct ArgDef {
    std::string name;
    bool is_array = false;
    DType dtype = DType::f64;
    Access access = Access::in;
    // Array: element count expression over problem.* and the scalar arguments (struct
    // members included), or whole_allocation: capture saves the allocation the pointer
    // lies in and where in it the pointer points (fields with leading padding, pools).
    std::string count;
    Partials partials = Partials::none;
    // A struct passed by value (arg_struct): its size and the members capture reads out
    // of it. A member is an array or scalar at a byte offset, not a launch argument.
    size_t struct_bytes = 0;
    size_t offset = 0;
    std::vector<ArgDef> members;
    bool is_struct() const { return struct_bytes > 0; }
};

// A tensor map (CUtensorMap, a copy-engine descriptor) the runtime encodes at every launch
// from array argument `array` and passes after the caller's arguments: the maps a
// configuration uses (`when` non-zero), in declaration order, form one parameter, an
// array of 128-byte maps. The map's origin lies `offset` elements past the pointer; dims
// are its extents in elements (x fastest; the strides follow from them), box the extents
// of one copy, expressions like the launch geometry.
struct TensorMapDef {
    std::string array;
    long long offset = 0;
    std::array<long long, 3> dims{};
    std::array<std::string, 3> box;
    std::string when;
};
// One map as a configuration uses it.
struct TensorMapSpec {
    size_t arg = 0;        // index of the array among the arguments
    size_t elem_bytes = 0; // 4 or 8
    long long offset = 0;
    std::array<long long, 3> dims{};
    std::array<unsigned, 3> box{};
};

struct LaunchGeometry {
    std::array<unsigned, 3> grid{1, 1, 1};
    std::array<unsigned, 3> block{1, 1, 1};
    unsigned shared_mem = 0;
    // Preferred shared-memory share of the unified L1/shared memory in percent (the
    // function attribute PREFERRED_SHARED_MEMORY_CARVEOUT); -1: the driver's choice.
    int carveout = -1;
    unsigned threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// Everything NVRTC needs for one instance. hash() covers all of it except the NVRTC
// version, which the cache adds.
struct CompileSpec {
    std::string key;             // tuning key, for messages
    std::string description;     // key, configuration and problem size, for messages
    std::string program;         // generated main file: defines, then #include of the source
    SourcesPtr sources;          // in-memory headers
    std::string name_expression; // "name<float, 128>"
    std::vector<std::string> options;
    std::string arch; // "sm_90"
    uint64_t hash() const;
};

class KernelDef {
public:
    KernelDef(std::string function_name, SourcesPtr sources, std::string main_file);

    // The tuning key names wisdom files and capture patterns: base plus '_'-joined
    // arguments, e.g. tuning_key("advec_u", "double") -> "advec_u_double".
    KernelDef& tuning_key(std::string base, std::vector<std::string> args = {});
    template <typename... T>
    KernelDef& tuning_key(std::string base, const T&... args) {
        return tuning_key(std::move(base), std::vector<std::string>{std::string(args)...});
    }

    KernelDef& tune(std::string name, std::vector<Value> values, Value default_value);
    KernelDef& tune(std::string name, std::vector<Value> values); // default: first value
    // A condition every valid configuration satisfies.
    KernelDef& restriction(const Term& condition);
    KernelDef& restriction(const std::string& expression); // text path
    // A starting point for searches beside the default (ConfigSpace::add_start).
    KernelDef& start_point(const std::vector<std::pair<std::string, Value>>& values);

    KernelDef& template_args(std::vector<TextOrExpr> args);
    template <typename... T>
    KernelDef& template_args(const T&... args) {
        return template_args(std::vector<TextOrExpr>{TextOrExpr(args)...});
    }
    KernelDef& define(std::string name, TextOrExpr value);
    KernelDef& compiler_flags(std::vector<std::string> flags);

    // Launch geometry, integer expressions. The grid defaults to ceil_div(problem, block)
    // per axis. Each call has a text path taking strings.
    KernelDef& block_size(const Term& x, const Term& y = 1, const Term& z = 1);
    KernelDef& block_size(std::string x, std::string y = "1", std::string z = "1");
    KernelDef& grid_divisors(const Term& x, const Term& y = 1, const Term& z = 1);
    KernelDef& grid_divisors(std::string x, std::string y = "1", std::string z = "1");
    KernelDef& grid_size(const Term& x, const Term& y = 1, const Term& z = 1);
    KernelDef& grid_size(std::string x, std::string y = "1", std::string z = "1");
    KernelDef& shared_memory(const Term& bytes);
    KernelDef& shared_memory(std::string bytes);
    // Defines SQUALL_LAUNCH_BOUNDS as __launch_bounds__(threads, min_blocks); without
    // this call it expands to nothing. Kernels write: __global__ void SQUALL_LAUNCH_BOUNDS f(...)
    KernelDef& launch_bounds(const Term& max_threads, const Term& min_blocks = 1);
    KernelDef& launch_bounds(std::string max_threads, std::string min_blocks = "1");
    // Preferred shared-memory carveout in percent of the unified L1/shared memory (0:
    // the largest L1), an expression; -1 (the default) leaves it to the driver.
    KernelDef& preferred_carveout(const Term& percent);
    KernelDef& preferred_carveout(std::string percent);

    // Argument layout (optional; required for capture).
    KernelDef& arg_array(std::string name, DType type, Access access, std::string count,
                         Partials partials = Partials::none);
    KernelDef& arg_scalar(std::string name, DType type);
    // A struct argument of `bytes` bytes; member_array/member_scalar describe what lies
    // in the last one declared (throws std::logic_error without one or past its end).
    KernelDef& arg_struct(std::string name, size_t bytes);
    KernelDef& member_array(std::string name, DType type, Access access, std::string count,
                            size_t offset);
    KernelDef& member_scalar(std::string name, DType type, size_t offset);

    // A tensor map of a real (f32, f64) array argument declared before; see TensorMapDef.
    // box: integer expressions; when: an integer or a condition.
    KernelDef& tensor_map(std::string array, long long offset, std::array<long long, 3> dims,
                          const std::array<Term, 3>& box, const Term& when = 1);
    KernelDef& tensor_map(std::string array, long long offset, std::array<long long, 3> dims,
                          std::array<std::string, 3> box, std::string when = "1");
    const std::vector<TensorMapDef>& tensor_map_defs() const { return map_defs_; }
    // The maps a configuration uses (throws std::invalid_argument for a box outside 1..256).
    std::vector<TensorMapSpec> tensor_maps(const Config& c, const ProblemSize& p,
                                           const DeviceInfo& d) const;

    const std::string& function_name() const { return function_name_; }
    const std::string& key() const { return key_; }
    const std::string& main_file() const { return main_file_; }
    const SourcesPtr& sources() const { return sources_; }
    const ConfigSpace& space() const { return space_; }
    const std::vector<ArgDef>& args() const { return args_; }

    // Evaluates geometry for a configuration; throws std::invalid_argument when the
    // configuration is invalid or the geometry is out of the device's limits.
    LaunchGeometry geometry(const Config& c, const ProblemSize& p, const DeviceInfo& d) const;
    // Builds the compile specification (validates the configuration as above).
    CompileSpec compile_spec(const Config& c, const ProblemSize& p, const DeviceInfo& d,
                             const std::string& arch) const;
    // Equal for two configurations exactly when they compile to the same code and launch
    // alike (geometry, shared memory, carveout, tensor maps): one measurement serves both.
    uint64_t fingerprint(const Config& c, const ProblemSize& p, const DeviceInfo& d,
                         const std::string& arch) const;

    nlohmann::json to_json(bool with_sources = true) const;
    static KernelDef from_json(const nlohmann::json& j);

private:
    struct NamedText {
        std::string name;
        TextOrExpr value;
        Expr compiled;
    };
    Expr compile(const std::string& text) const;
    // Lowers a term; throws unless its result may be of one of the allowed kinds.
    Expr compile(const Term& term, Kinds allowed, const char* what) const;
    Expr compile(const TextOrExpr& t, const char* what) const; // empty for verbatim text
    KernelDef& set_block(std::array<Expr, 3> e);
    KernelDef& set_grid(std::array<Expr, 3> e, bool is_divisor);
    KernelDef& add_tensor_map(std::string array, long long offset, std::array<long long, 3> dims,
                              std::array<Expr, 3> box, Expr when);
    std::string render(const TextOrExpr& t, const Expr& e, const Value* slots) const;

    std::string function_name_, key_, main_file_;
    SourcesPtr sources_;
    ConfigSpace space_;
    std::vector<NamedText> template_args_, defines_;
    std::vector<std::string> flags_;
    std::array<std::string, 3> block_{"1", "1", "1"}, grid_;
    bool grid_is_divisor_ = true;
    bool grid_follows_block_ = true; // grid divisors track block_size until set
    std::string smem_ = "0", lb_threads_, lb_blocks_, carveout_ = "-1";
    std::array<Expr, 3> block_e_, grid_e_;
    Expr smem_e_, lb_threads_e_, lb_blocks_e_, carveout_e_;
    std::vector<ArgDef> args_;
    std::vector<TensorMapDef> map_defs_;
    struct MapExprs {
        std::array<Expr, 3> box;
        Expr when;
    };
    std::vector<MapExprs> map_exprs_;
};

} // namespace squall::rt
