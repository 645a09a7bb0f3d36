#include "runtime/kernel_def.h"

#include "runtime/hash.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <stdexcept>

namespace squall::rt {

namespace {
constexpr const char* dtype_names[] = {"i8",  "u8",  "i16", "u16", "i32",
                                       "u32", "i64", "u64", "f32", "f64"};
constexpr size_t dtype_sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
} // namespace

size_t dtype_size(DType t) {
    return dtype_sizes[static_cast<size_t>(t)];
}
const char* dtype_name(DType t) {
    return dtype_names[static_cast<size_t>(t)];
}
DType dtype_from_name(const std::string& name) {
    for (size_t i = 0; i < std::size(dtype_names); ++i)
        if (name == dtype_names[i]) return static_cast<DType>(i);
    throw std::invalid_argument("unknown data type '" + name + "'");
}
const char* access_name(Access a) {
    return a == Access::in ? "in" : a == Access::out ? "out" : "inout";
}
Access access_from_name(const std::string& name) {
    if (name == "in") return Access::in;
    if (name == "out") return Access::out;
    if (name == "inout") return Access::inout;
    throw std::invalid_argument("unknown access '" + name + "'");
}

uint64_t CompileSpec::hash() const {
    Hasher h(0xc0de);
    h.add(program).add(sources ? sources->hash() : 0).add(name_expression).add(arch);
    for (const auto& o : options) h.add(o);
    return h.digest();
}

KernelDef::KernelDef(std::string function_name, SourcesPtr sources, std::string main_file)
    : function_name_(std::move(function_name)), key_(function_name_),
      main_file_(std::move(main_file)), sources_(std::move(sources)) {
    if (!sources_ || !sources_->find(main_file_))
        throw std::invalid_argument(fmt::format("kernel '{}': source file '{}' is not among the "
                                                "embedded sources",
                                                function_name_, main_file_));
    block_size("1", "1", "1");
}

Expr KernelDef::compile(const std::string& text) const {
    try {
        return Expr::parse(text, space_.scope());
    } catch (const ExprError& e) {
        throw ExprError(fmt::format("kernel '{}': {}", key_, e.what()));
    }
}

KernelDef& KernelDef::tuning_key(std::string base, std::vector<std::string> args) {
    key_ = std::move(base);
    for (auto& a : args) key_ += "_" + a;
    return *this;
}

KernelDef& KernelDef::tune(std::string name, std::vector<Value> values, Value default_value) {
    space_.add_param(std::move(name), std::move(values), default_value);
    return *this;
}

KernelDef& KernelDef::tune(std::string name, std::vector<Value> values) {
    if (values.empty()) throw std::invalid_argument("parameter '" + name + "' has no values");
    Value first = values.front();
    return tune(std::move(name), std::move(values), first);
}

KernelDef& KernelDef::restriction(const std::string& expression) {
    compile(expression); // for the error message with the kernel's key
    space_.add_restriction(expression);
    return *this;
}

KernelDef& KernelDef::template_args(std::vector<TextOrExpr> args) {
    template_args_.clear();
    for (auto& a : args) {
        Expr e = a.is_expr ? compile(a.text) : Expr();
        template_args_.push_back({"", std::move(a), std::move(e)});
    }
    return *this;
}

KernelDef& KernelDef::define(std::string name, TextOrExpr value) {
    Expr e = value.is_expr ? compile(value.text) : Expr();
    defines_.push_back({std::move(name), std::move(value), std::move(e)});
    return *this;
}

KernelDef& KernelDef::compiler_flags(std::vector<std::string> flags) {
    flags_.insert(flags_.end(), flags.begin(), flags.end());
    return *this;
}

KernelDef& KernelDef::block_size(std::string x, std::string y, std::string z) {
    block_ = {std::move(x), std::move(y), std::move(z)};
    for (int i = 0; i < 3; ++i) block_e_[i] = compile(block_[i]);
    if (grid_follows_block_)
        for (int i = 0; i < 3; ++i) grid_e_[i] = block_e_[i];
    return *this;
}

KernelDef& KernelDef::grid_divisors(std::string x, std::string y, std::string z) {
    grid_ = {std::move(x), std::move(y), std::move(z)};
    for (int i = 0; i < 3; ++i) grid_e_[i] = compile(grid_[i]);
    grid_is_divisor_ = true;
    grid_follows_block_ = false;
    return *this;
}

KernelDef& KernelDef::grid_size(std::string x, std::string y, std::string z) {
    grid_divisors(std::move(x), std::move(y), std::move(z));
    grid_is_divisor_ = false;
    return *this;
}

KernelDef& KernelDef::preferred_carveout(std::string percent) {
    carveout_e_ = compile(percent);
    carveout_ = std::move(percent);
    return *this;
}

KernelDef& KernelDef::shared_memory(std::string bytes) {
    smem_e_ = compile(bytes);
    smem_ = std::move(bytes);
    return *this;
}

KernelDef& KernelDef::launch_bounds(std::string max_threads, std::string min_blocks) {
    lb_threads_e_ = compile(max_threads);
    lb_blocks_e_ = compile(min_blocks);
    lb_threads_ = std::move(max_threads);
    lb_blocks_ = std::move(min_blocks);
    return *this;
}

namespace {
ArgDef make_arg(std::string name, bool is_array, DType type, Access access, std::string count) {
    ArgDef a;
    a.name = std::move(name), a.is_array = is_array, a.dtype = type, a.access = access;
    a.count = std::move(count);
    return a;
}
} // namespace

KernelDef& KernelDef::arg_array(std::string name, DType type, Access access, std::string count) {
    args_.push_back(make_arg(std::move(name), true, type, access, std::move(count)));
    return *this;
}

KernelDef& KernelDef::arg_scalar(std::string name, DType type) {
    args_.push_back(make_arg(std::move(name), false, type, Access::in, ""));
    return *this;
}

KernelDef& KernelDef::arg_struct(std::string name, size_t bytes) {
    if (bytes == 0) throw std::logic_error("struct argument '" + name + "' of size 0");
    ArgDef a;
    a.name = std::move(name);
    a.struct_bytes = bytes;
    args_.push_back(std::move(a));
    return *this;
}

namespace {
ArgDef& add_member(std::vector<ArgDef>& args, ArgDef m, size_t bytes) {
    if (args.empty() || !args.back().is_struct())
        throw std::logic_error("member '" + m.name + "' declared without a struct argument");
    ArgDef& s = args.back();
    if (m.offset + bytes > s.struct_bytes)
        throw std::logic_error(fmt::format("member '{}' at byte {} lies past the end of '{}' "
                                           "({} bytes)",
                                           m.name, m.offset, s.name, s.struct_bytes));
    return s.members.emplace_back(std::move(m));
}
} // namespace

KernelDef& KernelDef::member_array(std::string name, DType type, Access access, std::string count,
                                   size_t offset) {
    ArgDef m = make_arg(std::move(name), true, type, access, std::move(count));
    m.offset = offset;
    add_member(args_, std::move(m), sizeof(void*));
    return *this;
}

KernelDef& KernelDef::member_scalar(std::string name, DType type, size_t offset) {
    ArgDef m = make_arg(std::move(name), false, type, Access::in, "");
    m.offset = offset;
    add_member(args_, std::move(m), dtype_size(type));
    return *this;
}

KernelDef& KernelDef::tensor_map(std::string array, long long offset, std::array<long long, 3> dims,
                                 std::array<std::string, 3> box, std::string when) {
    const auto it = std::find_if(args_.begin(), args_.end(),
                                 [&](const ArgDef& a) { return a.name == array && a.is_array; });
    if (it == args_.end() || (it->dtype != DType::f32 && it->dtype != DType::f64))
        throw std::logic_error(fmt::format("kernel '{}': tensor map of '{}', which is not a real "
                                           "array argument declared before",
                                           key_, array));
    for (long long n : dims)
        if (n <= 0)
            throw std::logic_error(fmt::format(
                "kernel '{}': tensor map of '{}' with an extent of {}", key_, array, n));
    MapExprs e{{compile(box[0]), compile(box[1]), compile(box[2])}, compile(when)};
    map_exprs_.push_back(std::move(e));
    map_defs_.push_back({std::move(array), offset, dims, std::move(box), std::move(when)});
    return *this;
}

std::vector<TensorMapSpec> KernelDef::tensor_maps(const Config& c, const ProblemSize& p,
                                                  const DeviceInfo& d) const {
    std::vector<TensorMapSpec> out;
    if (map_defs_.empty()) return out;
    std::vector<Value> slots;
    space_.fill_slots(slots, c, p, d);
    for (size_t m = 0; m < map_defs_.size(); ++m) {
        const MapExprs& e = map_exprs_[m];
        if (e.when.eval(slots.data()).as_int() == 0) continue;
        const TensorMapDef& def = map_defs_[m];
        TensorMapSpec s;
        s.arg = size_t(std::find_if(args_.begin(), args_.end(),
                                    [&](const ArgDef& a) { return a.name == def.array; }) -
                       args_.begin());
        s.elem_bytes = dtype_size(args_[s.arg].dtype);
        s.offset = def.offset;
        s.dims = def.dims;
        for (size_t i = 0; i < 3; ++i) {
            const int64_t b = e.box[i].eval(slots.data()).as_int();
            if (b < 1 || b > 256)
                throw std::invalid_argument(fmt::format("kernel '{}': [{}] gives a tensor-map "
                                                        "box of {} on axis {} for '{}', outside "
                                                        "1..256",
                                                        key_, space_.format(c), b, "xyz"[i],
                                                        def.array));
            s.box[i] = unsigned(b);
        }
        out.push_back(s);
    }
    return out;
}

LaunchGeometry KernelDef::geometry(const Config& c, const ProblemSize& p,
                                   const DeviceInfo& d) const {
    std::string why;
    if (!space_.is_valid(c, p, d, &why))
        throw std::invalid_argument(fmt::format("kernel '{}': configuration [{}] is not valid for "
                                                "problem {}: {}",
                                                key_, space_.format(c), p.to_string(), why));
    std::vector<Value> slots;
    space_.fill_slots(slots, c, p, d);
    LaunchGeometry g;
    for (int i = 0; i < 3; ++i) {
        int64_t b = block_e_[i].eval(slots.data()).as_int();
        int64_t gv = grid_e_[i].eval(slots.data()).as_int();
        if (grid_is_divisor_) {
            if (gv <= 0)
                throw std::invalid_argument(fmt::format("kernel '{}': grid divisor '{}' is {}",
                                                        key_, grid_e_[i].text(), gv));
            gv = (p[i] + gv - 1) / gv;
        }
        if (b <= 0 || gv <= 0 || gv > (i == 0 ? 0x7fffffffLL : 65535LL))
            throw std::invalid_argument(
                fmt::format("kernel '{}': [{}] gives block {} and grid {} on axis {}, out of range",
                            key_, space_.format(c), b, gv, "xyz"[i]));
        g.block[static_cast<size_t>(i)] = static_cast<unsigned>(b);
        g.grid[static_cast<size_t>(i)] = static_cast<unsigned>(gv);
    }
    int64_t smem = smem_e_.empty() ? 0 : smem_e_.eval(slots.data()).as_int();
    if (g.threads_per_block() > d.max_threads_per_block || smem < 0 ||
        smem > d.max_shared_memory_per_block_optin)
        throw std::invalid_argument(fmt::format(
            "kernel '{}': [{}] needs {} threads and {} bytes of shared memory per block, over "
            "the device's limits",
            key_, space_.format(c), g.threads_per_block(), smem));
    g.shared_mem = static_cast<unsigned>(smem);
    const int64_t carveout = carveout_e_.empty() ? -1 : carveout_e_.eval(slots.data()).as_int();
    if (carveout < -1 || carveout > 100)
        throw std::invalid_argument(fmt::format("kernel '{}': [{}] gives a shared-memory "
                                                "carveout of {} %, outside -1..100",
                                                key_, space_.format(c), carveout));
    g.carveout = static_cast<int>(carveout);
    return g;
}

std::string KernelDef::render(const TextOrExpr& t, const Expr& e, const Value* slots) const {
    return t.is_expr ? e.eval(slots).to_string() : t.text;
}

CompileSpec KernelDef::compile_spec(const Config& c, const ProblemSize& p, const DeviceInfo& d,
                                    const std::string& arch) const {
    (void)geometry(c, p, d); // validates the configuration and limits
    std::vector<Value> slots;
    space_.fill_slots(slots, c, p, d);

    CompileSpec s;
    s.key = key_;
    s.description =
        fmt::format("kernel '{}' [{}] problem {}", key_, space_.format(c), p.to_string());
    s.sources = sources_;
    s.arch = arch;
    s.options = {"-std=c++17"};
    s.options.insert(s.options.end(), flags_.begin(), flags_.end());

    std::string prog = fmt::format("// generated by squall runtime for {}\n", s.description);
    if (!lb_threads_.empty()) {
        int64_t t = lb_threads_e_.eval(slots.data()).as_int();
        int64_t b = lb_blocks_e_.eval(slots.data()).as_int();
        prog += fmt::format("#define SQUALL_LAUNCH_BOUNDS __launch_bounds__({}, {})\n", t, b);
        prog += fmt::format("#define SQUALL_LAUNCH_BOUNDS_THREADS {}\n", t);
        prog += fmt::format("#define SQUALL_LAUNCH_BOUNDS_BLOCKS {}\n", b);
    } else {
        prog += "#define SQUALL_LAUNCH_BOUNDS\n";
    }
    for (const auto& def : defines_)
        prog +=
            fmt::format("#define {} {}\n", def.name, render(def.value, def.compiled, slots.data()));
    prog += fmt::format("#include \"{}\"\n", main_file_);
    s.program = std::move(prog);

    s.name_expression = function_name_;
    if (!template_args_.empty()) {
        s.name_expression += "<";
        for (size_t i = 0; i < template_args_.size(); ++i) {
            const auto& ta = template_args_[i];
            s.name_expression += (i ? ", " : "") + render(ta.value, ta.compiled, slots.data());
        }
        s.name_expression += ">";
    }
    return s;
}

namespace {
nlohmann::json arg_json(const ArgDef& a) {
    nlohmann::json j = {{"name", a.name}, {"array", a.is_array}};
    if (a.is_struct()) {
        j["struct_bytes"] = a.struct_bytes;
        j["members"] = nlohmann::json::array();
        for (const auto& m : a.members) j["members"].push_back(arg_json(m));
        return j;
    }
    j["type"] = dtype_name(a.dtype);
    j["access"] = access_name(a.access);
    j["count"] = a.count;
    if (a.offset) j["offset"] = a.offset;
    return j;
}

ArgDef arg_from_json(const nlohmann::json& j) {
    ArgDef a;
    a.name = j.at("name").get<std::string>();
    a.is_array = j.at("array").get<bool>();
    if (j.contains("struct_bytes")) {
        a.struct_bytes = j.at("struct_bytes").get<size_t>();
        for (const auto& m : j.at("members")) a.members.push_back(arg_from_json(m));
        return a;
    }
    a.dtype = dtype_from_name(j.at("type"));
    a.access = access_from_name(j.at("access"));
    a.count = j.at("count").get<std::string>();
    a.offset = j.value("offset", size_t(0));
    return a;
}
} // namespace

nlohmann::json KernelDef::to_json(bool with_sources) const {
    using nlohmann::json;
    auto text_json = [](const TextOrExpr& t) {
        return json{{"expr", t.is_expr}, {"text", t.text}};
    };
    json targs = json::array(), defs = json::array(), args = json::array();
    for (const auto& t : template_args_) targs.push_back(text_json(t.value));
    for (const auto& d : defines_) {
        json j = text_json(d.value);
        j["name"] = d.name;
        defs.push_back(j);
    }
    for (const auto& a : args_) args.push_back(arg_json(a));
    json j = {{"function", function_name_},
              {"key", key_},
              {"main_file", main_file_},
              {"space", space_.to_json()},
              {"template_args", targs},
              {"defines", defs},
              {"flags", flags_},
              {"block_size", block_},
              {"grid", grid_follows_block_ ? block_ : grid_},
              {"grid_is_divisor", grid_is_divisor_},
              {"shared_memory", smem_},
              {"carveout", carveout_},
              {"launch_bounds", {lb_threads_, lb_blocks_}},
              {"args", args}};
    if (!map_defs_.empty()) {
        json maps = json::array();
        for (const auto& m : map_defs_)
            maps.push_back({{"array", m.array},
                            {"offset", m.offset},
                            {"dims", m.dims},
                            {"box", m.box},
                            {"when", m.when}});
        j["tensor_maps"] = maps;
    }
    if (with_sources) j["sources"] = sources_->to_json();
    return j;
}

KernelDef KernelDef::from_json(const nlohmann::json& j) {
    auto sources = std::make_shared<const SourceSet>(SourceSet::from_json(j.at("sources")));
    KernelDef k(j.at("function").get<std::string>(), sources, j.at("main_file").get<std::string>());
    k.key_ = j.at("key").get<std::string>();
    ConfigSpace space = ConfigSpace::from_json(j.at("space"));
    for (const auto& p : space.params()) k.tune(p.name, p.values, p.default_value);
    for (const auto& r : space.restrictions()) k.restriction(r.text());
    auto text = [](const nlohmann::json& t) {
        std::string s = t.at("text").get<std::string>();
        return t.at("expr").get<bool>() ? TextOrExpr(expr(s)) : TextOrExpr(s);
    };
    std::vector<TextOrExpr> targs;
    for (const auto& t : j.at("template_args")) targs.push_back(text(t));
    k.template_args(std::move(targs));
    for (const auto& d : j.at("defines")) k.define(d.at("name").get<std::string>(), text(d));
    k.compiler_flags(j.at("flags").get<std::vector<std::string>>());
    auto b = j.at("block_size").get<std::array<std::string, 3>>();
    k.block_size(b[0], b[1], b[2]);
    auto g = j.at("grid").get<std::array<std::string, 3>>();
    if (j.at("grid_is_divisor").get<bool>()) {
        if (g != b) k.grid_divisors(g[0], g[1], g[2]);
    } else {
        k.grid_size(g[0], g[1], g[2]);
    }
    k.shared_memory(j.at("shared_memory").get<std::string>());
    if (const std::string c = j.value("carveout", std::string("-1")); c != "-1")
        k.preferred_carveout(c);
    auto lb = j.at("launch_bounds").get<std::array<std::string, 2>>();
    if (!lb[0].empty()) k.launch_bounds(lb[0], lb[1]);
    for (const auto& a : j.at("args")) k.args_.push_back(arg_from_json(a));
    if (j.contains("tensor_maps"))
        for (const auto& m : j.at("tensor_maps"))
            k.tensor_map(m.at("array").get<std::string>(), m.at("offset").get<long long>(),
                         m.at("dims").get<std::array<long long, 3>>(),
                         m.at("box").get<std::array<std::string, 3>>(),
                         m.at("when").get<std::string>());
    return k;
}

} // namespace squall::rt
