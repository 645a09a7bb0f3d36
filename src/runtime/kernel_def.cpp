#include "runtime/kernel_def.h"

#include "runtime/hash.h"

#include <fmt/format.h>

#include <algorithm>

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
    // The program's first line names the configuration for a reader; configurations that
    // generate the same code share one compile.
    std::string_view code = program;
    if (code.rfind("//", 0) == 0) code.remove_prefix(std::min(code.size(), code.find('\n')));
    Hasher h(0xc0de);
    h.add(code).add(sources ? sources->hash() : 0).add(name_expression).add(arch);
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

Expr KernelDef::compile(const Term& term, Kinds allowed, const char* what) const {
    Expr e;
    try {
        e = Expr::compile(term, space_.scope());
    } catch (const ExprError& err) {
        throw ExprError(fmt::format("kernel '{}': {}: {}", key_, what, err.what()));
    }
    if (!(e.kinds() & allowed))
        throw ExprError(fmt::format("kernel '{}': {} '{}' is {}, not {}", key_, what, e.text(),
                                    kinds_name(e.kinds()), kinds_name(allowed)));
    return e;
}

Expr KernelDef::compile(const TextOrExpr& t, const char* what) const {
    if (!t.is_expr) return Expr();
    return t.term.empty() ? compile(t.text) : compile(t.term, any_kind, what);
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

KernelDef& KernelDef::restriction(const Term& condition) {
    try {
        space_.add_restriction(condition);
    } catch (const ExprError& e) {
        throw ExprError(fmt::format("kernel '{}': {}", key_, e.what()));
    }
    return *this;
}

KernelDef& KernelDef::restriction(const std::string& expression) {
    compile(expression); // for the error message with the kernel's key
    space_.add_restriction(expression);
    return *this;
}

KernelDef& KernelDef::start_point(const std::vector<std::pair<std::string, Value>>& values) {
    try {
        space_.add_start(values);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("kernel '{}': start point: {}", key_, e.what()));
    }
    return *this;
}

KernelDef& KernelDef::template_args(std::vector<TextOrExpr> args) {
    template_args_.clear();
    for (auto& a : args) {
        Expr e = compile(a, "template argument");
        template_args_.push_back({"", std::move(a), std::move(e)});
    }
    return *this;
}

KernelDef& KernelDef::define(std::string name, TextOrExpr value) {
    Expr e = compile(value, "define");
    defines_.push_back({std::move(name), std::move(value), std::move(e)});
    return *this;
}

KernelDef& KernelDef::compiler_flags(std::vector<std::string> flags) {
    flags_.insert(flags_.end(), flags.begin(), flags.end());
    return *this;
}

// Each geometry call has a text path (strings, parsed) and a term path (lowered and
// kind-checked); both store the expression's text for to_json.
KernelDef& KernelDef::set_block(std::array<Expr, 3> e) {
    for (size_t i = 0; i < 3; ++i) block_[i] = e[i].text();
    block_e_ = std::move(e);
    if (grid_follows_block_) grid_e_ = block_e_;
    return *this;
}

KernelDef& KernelDef::block_size(std::string x, std::string y, std::string z) {
    return set_block({compile(x), compile(y), compile(z)});
}

KernelDef& KernelDef::block_size(const Term& x, const Term& y, const Term& z) {
    return set_block({compile(x, int_kind, "block size"), compile(y, int_kind, "block size"),
                      compile(z, int_kind, "block size")});
}

KernelDef& KernelDef::set_grid(std::array<Expr, 3> e, bool is_divisor) {
    for (size_t i = 0; i < 3; ++i) grid_[i] = e[i].text();
    grid_e_ = std::move(e);
    grid_is_divisor_ = is_divisor;
    grid_follows_block_ = false;
    return *this;
}

KernelDef& KernelDef::grid_divisors(std::string x, std::string y, std::string z) {
    return set_grid({compile(x), compile(y), compile(z)}, true);
}

KernelDef& KernelDef::grid_divisors(const Term& x, const Term& y, const Term& z) {
    const char* what = "grid divisor";
    return set_grid(
        {compile(x, int_kind, what), compile(y, int_kind, what), compile(z, int_kind, what)}, true);
}

KernelDef& KernelDef::grid_size(std::string x, std::string y, std::string z) {
    return set_grid({compile(x), compile(y), compile(z)}, false);
}

KernelDef& KernelDef::grid_size(const Term& x, const Term& y, const Term& z) {
    const char* what = "grid size";
    return set_grid(
        {compile(x, int_kind, what), compile(y, int_kind, what), compile(z, int_kind, what)},
        false);
}

KernelDef& KernelDef::preferred_carveout(std::string percent) {
    carveout_e_ = compile(percent);
    carveout_ = std::move(percent);
    return *this;
}

KernelDef& KernelDef::preferred_carveout(const Term& percent) {
    carveout_e_ = compile(percent, int_kind, "carveout");
    carveout_ = carveout_e_.text();
    return *this;
}

KernelDef& KernelDef::shared_memory(std::string bytes) {
    smem_e_ = compile(bytes);
    smem_ = std::move(bytes);
    return *this;
}

KernelDef& KernelDef::shared_memory(const Term& bytes) {
    smem_e_ = compile(bytes, int_kind, "shared memory size");
    smem_ = smem_e_.text();
    return *this;
}

KernelDef& KernelDef::launch_bounds(std::string max_threads, std::string min_blocks) {
    lb_threads_e_ = compile(max_threads);
    lb_blocks_e_ = compile(min_blocks);
    lb_threads_ = std::move(max_threads);
    lb_blocks_ = std::move(min_blocks);
    return *this;
}

KernelDef& KernelDef::launch_bounds(const Term& max_threads, const Term& min_blocks) {
    lb_threads_e_ = compile(max_threads, int_kind, "launch bounds");
    lb_blocks_e_ = compile(min_blocks, int_kind, "launch bounds");
    lb_threads_ = lb_threads_e_.text();
    lb_blocks_ = lb_blocks_e_.text();
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

KernelDef& KernelDef::arg_array(std::string name, DType type, Access access, std::string count,
                                Partials partials) {
    args_.push_back(make_arg(std::move(name), true, type, access, std::move(count)));
    args_.back().partials = partials;
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
    return add_tensor_map(std::move(array), offset, dims,
                          {compile(box[0]), compile(box[1]), compile(box[2])}, compile(when));
}

KernelDef& KernelDef::tensor_map(std::string array, long long offset, std::array<long long, 3> dims,
                                 const std::array<Term, 3>& box, const Term& when) {
    const char* what = "tensor-map box";
    return add_tensor_map(std::move(array), offset, dims,
                          {compile(box[0], int_kind, what), compile(box[1], int_kind, what),
                           compile(box[2], int_kind, what)},
                          compile(when, int_kind | bool_kind, "tensor-map condition"));
}

KernelDef& KernelDef::add_tensor_map(std::string array, long long offset,
                                     std::array<long long, 3> dims, std::array<Expr, 3> box,
                                     Expr when) {
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
    map_defs_.push_back({std::move(array),
                         offset,
                         dims,
                         {box[0].text(), box[1].text(), box[2].text()},
                         when.text()});
    map_exprs_.push_back({std::move(box), std::move(when)});
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

uint64_t KernelDef::fingerprint(const Config& c, const ProblemSize& p, const DeviceInfo& d,
                                const std::string& arch) const {
    Hasher h(0xf1f1);
    h.add(compile_spec(c, p, d, arch).hash());
    const LaunchGeometry g = geometry(c, p, d);
    for (unsigned v : g.grid) h.add(uint64_t(v));
    for (unsigned v : g.block) h.add(uint64_t(v));
    h.add(uint64_t(g.shared_mem)).add(uint64_t(int64_t(g.carveout)));
    for (const TensorMapSpec& m : tensor_maps(c, p, d)) {
        h.add(uint64_t(m.arg)).add(uint64_t(m.elem_bytes)).add(uint64_t(m.offset));
        for (long long v : m.dims) h.add(uint64_t(v));
        for (unsigned v : m.box) h.add(uint64_t(v));
    }
    return h.digest();
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
    s.options = {"-std=c++20"};
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

} // namespace squall::rt
