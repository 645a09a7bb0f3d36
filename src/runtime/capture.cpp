#include "runtime/capture.h"

#include "runtime/driver.h"
#include "runtime/expr.h"
#include "runtime/hash.h"
#include "runtime/log.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace squall::rt {

namespace fs = std::filesystem;
using nlohmann::json;

const char* squall_version() {
    return SQUALL_VERSION;
}
const char* squall_git_revision() {
    const char* rev = std::getenv("SQUALL_GIT_REVISION"); // a copy without its .git
    return rev && *rev ? rev : built_git_revision();
}

namespace {
CaptureSink& sink_storage() {
    static CaptureSink sink;
    return sink;
}
} // namespace
void set_capture_sink(CaptureSink sink) {
    sink_storage() = std::move(sink);
}
const CaptureSink& capture_sink() {
    return sink_storage();
}

bool glob_match(std::string_view pattern, std::string_view text) {
    // Iterative matcher with backtracking to the last '*'.
    size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == text[t] || pattern[p] == '?')) {
            ++p, ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

CaptureSettings CaptureSettings::from_env() {
    CaptureSettings s;
    if (const char* c = std::getenv("SQUALL_CAPTURE")) {
        std::stringstream ss(c);
        std::string item;
        while (std::getline(ss, item, ',')) {
            item.erase(0, item.find_first_not_of(" \t"));
            item.erase(item.find_last_not_of(" \t") + 1);
            if (!item.empty()) s.patterns.push_back(item);
        }
    }
    auto number = [](const char* name, uint64_t fallback) {
        const char* v = std::getenv(name);
        if (!v || !*v) return fallback;
        char* end = nullptr;
        unsigned long long n = std::strtoull(v, &end, 10);
        if (*end != '\0') {
            log_warn("{}='{}' is not a number; using {}", name, v, fallback);
            return fallback;
        }
        return static_cast<uint64_t>(n);
    };
    s.skip = number("SQUALL_CAPTURE_SKIP", 0);
    s.max_bytes = number("SQUALL_CAPTURE_MAX_MB", 4096) << 20;
    if (const char* d = std::getenv("SQUALL_CAPTURE_DIR"); d && *d) s.dir = d;
    return s;
}

bool CaptureSettings::matches(std::string_view key) const {
    for (const std::string_view p : patterns) {
        if (glob_match(p, key)) return true;
        // A pattern without wildcards also selects the keys that continue it with '_'
        // arguments, so that a kernel's name selects it in every precision.
        const bool bare = p.find_first_of("*?") == std::string_view::npos;
        if (bare && glob_match(std::string(p) + "_*", key)) return true;
    }
    return false;
}

uint64_t Capture::total_bytes() const {
    uint64_t n = 0;
    for (const auto& a : arrays)
        n += a.before.size() + a.after.size() + (a.device_before ? a.device_before->size() : 0) +
             (a.device_after ? a.device_after->size() : 0);
    return n;
}

Value scalar_value(DType t, const void* bytes) {
    auto get = [&](auto v) {
        std::memcpy(&v, bytes, sizeof v);
        return v;
    };
    switch (t) {
    case DType::i8:
        return Value(static_cast<long long>(get(int8_t{})));
    case DType::u8:
        return Value(static_cast<long long>(get(uint8_t{})));
    case DType::i16:
        return Value(static_cast<long long>(get(int16_t{})));
    case DType::u16:
        return Value(static_cast<long long>(get(uint16_t{})));
    case DType::i32:
        return Value(static_cast<long long>(get(int32_t{})));
    case DType::u32:
        return Value(static_cast<long long>(get(uint32_t{})));
    case DType::i64:
        return Value(static_cast<long long>(get(int64_t{})));
    case DType::u64:
        return Value(static_cast<long long>(get(uint64_t{})));
    case DType::f32:
        return Value(static_cast<double>(get(float{})));
    case DType::f64:
        return Value(get(double{}));
    }
    return Value();
}

namespace {

void write_file(const std::string& path, const std::vector<char>& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) throw CaptureError("cannot write capture file " + path);
}

// One read of the whole file: a 512^3 capture holds about 10 GB, which a read through
// stream iterators took tens of seconds to load, for every tune of it.
std::vector<char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw CaptureError("cannot read capture file " + path);
    const std::streamsize size = in.tellg();
    std::vector<char> data(size > 0 ? static_cast<size_t>(size) : 0);
    in.seekg(0);
    if (size > 0 && !in.read(data.data(), size))
        throw CaptureError(fmt::format("cannot read the {} bytes of capture file {}", size, path));
    return data;
}

std::string stem_for(const std::string& dir, const Capture& c) {
    std::string key = c.kernel.value("key", "kernel");
    for (char& ch : key)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-') ch = '_';
    const std::string base = fmt::format("{}_{}", key, c.problem.to_string());
    // Several processes (MPI ranks) may capture the same kernel into one directory at once.
    // A stem is taken only by atomically creating its claim file (O_EXCL), so no two writers
    // share data files; the claim is removed once the stem's JSON exists (release_stem).
    for (int i = 0;; ++i) {
        const std::string stem = i == 0 ? base : fmt::format("{}_{}", base, i);
        std::error_code ec;
        if (fs::exists(dir + "/" + stem + ".json", ec)) continue;
        const std::string claim = dir + "/" + stem + ".claim";
        const int fd = ::open(claim.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
        if (fd >= 0) {
            ::close(fd);
            // Another writer may have finished this stem between the check and the claim.
            if (!fs::exists(dir + "/" + stem + ".json", ec)) return stem;
            fs::remove(claim, ec);
        } else if (errno != EEXIST) {
            throw CaptureError(fmt::format("cannot create capture claim file {}: {}", claim,
                                           std::strerror(errno)));
        }
    }
}

void release_stem(const std::string& dir, const std::string& stem) {
    std::error_code ec;
    fs::remove(dir + "/" + stem + ".claim", ec);
}

} // namespace

namespace {

std::string to_hex(const std::vector<char>& bytes) {
    std::string hex;
    for (char b : bytes) hex += fmt::format("{:02x}", static_cast<unsigned char>(b));
    return hex;
}

std::vector<char> from_hex(const std::string& hex) {
    if (hex.size() % 2) throw CaptureError("odd number of hex digits");
    std::vector<char> out;
    for (size_t i = 0; i < hex.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

// Unique within a capture: struct members are named "<struct>.<member>".
std::string array_id(const Capture& c, const CapturedArray& a) {
    return a.member.parent < 0 ? a.name : c.structs[size_t(a.member.parent)].name + "." + a.name;
}

json scalar_json(const CapturedScalar& s) {
    json j = {{"name", s.name},
              {"kind", "scalar"},
              {"type", dtype_name(s.dtype)},
              {"value", s.value},
              {"bytes_hex", to_hex(s.raw)}};
    if (s.member.parent >= 0) j["member_offset"] = s.member.offset;
    return j;
}

json array_json(const std::string& dir, const std::string& stem, const Capture& c,
                const CapturedArray& a) {
    const std::string id = array_id(c, a);
    json j = {{"name", a.name},
              {"kind", "array"},
              {"type", dtype_name(a.dtype)},
              {"access", access_name(a.access)},
              {"count", a.count},
              {"bytes", a.bytes()},
              {"offset_bytes", a.offset}};
    if (a.member.parent >= 0) j["member_offset"] = a.member.offset;
    if (a.null) j["null"] = true;
    if (a.same_as >= 0) j["same_as"] = array_id(c, c.arrays[size_t(a.same_as)]);
    if (!a.has_data()) return j;
    j["before_file"] = stem + "." + id + ".before.bin";
    j["before_hash"] = hex64(a.hash_before);
    write_file(dir + "/" + j["before_file"].get<std::string>(), a.before);
    if (a.access != Access::in) {
        j["after_file"] = stem + "." + id + ".after.bin";
        j["after_hash"] = hex64(a.hash_after);
        write_file(dir + "/" + j["after_file"].get<std::string>(), a.after);
    }
    return j;
}

} // namespace

void hash_arrays(Capture& c) {
    std::vector<std::thread> threads;
    for (CapturedArray& a : c.arrays)
        threads.emplace_back([&a] {
            if (!a.device_before) a.hash_before = hash64(a.before.data(), a.before.size());
            if (!a.device_after) a.hash_after = hash64(a.after.data(), a.after.size());
        });
    for (std::thread& t : threads) t.join();
}

Partials partials_of(const std::vector<ArgDef>& args, const CapturedArray& a) {
    if (a.member.parent >= 0) return Partials::none;
    for (const ArgDef& arg : args)
        if (arg.name == a.name) return arg.partials;
    return Partials::none;
}

void describe_launch(Capture& c, const std::vector<ArgDef>& args, void* const* params, size_t count,
                     std::vector<uint64_t>& from) {
    if (args.size() != count)
        throw CaptureError(fmt::format("the definition declares {} argument(s) (arg_array / "
                                       "arg_scalar / arg_struct), the launch passed {}",
                                       args.size(), count));
    // Scalars first: array counts are expressions over them and the problem size.
    Scope scope;
    std::vector<Value> slots;
    for (int a = 0; a < 3; ++a) {
        scope.bind(std::string("problem.") + "xyz"[a], a);
        slots.push_back(Value(static_cast<long long>(c.problem[size_t(a)])));
    }
    // Struct members as "<struct>.<member>", and by their own name where no argument
    // has it.
    auto bind = [&](const std::string& name, const ArgDef& a, const char* bytes) {
        if (a.is_array || scope.find(name) >= 0) return;
        scope.bind(name, int(slots.size()));
        slots.push_back(scalar_value(a.dtype, bytes));
    };
    for (size_t i = 0; i < count; ++i)
        if (!args[i].is_struct()) bind(args[i].name, args[i], static_cast<const char*>(params[i]));
    for (size_t i = 0; i < count; ++i)
        for (const ArgDef& m : args[i].members) {
            const char* bytes = static_cast<const char*>(params[i]) + m.offset;
            bind(args[i].name + "." + m.name, m, bytes);
            bind(m.name, m, bytes);
        }

    std::vector<bool> whole; // per array: saved as its whole allocation
    auto add_scalar = [&](const ArgDef& a, const char* bytes, MemberOf member) {
        CapturedScalar sc{a.name, a.dtype, scalar_value(a.dtype, bytes),
                          std::vector<char>(bytes, bytes + dtype_size(a.dtype)), member};
        c.scalars.push_back(std::move(sc));
        return std::make_pair(ArgKind::scalar, c.scalars.size() - 1);
    };
    auto add_array = [&](const ArgDef& a, const char* bytes, MemberOf member) {
        CapturedArray arr;
        arr.name = a.name, arr.dtype = a.dtype, arr.access = a.access, arr.member = member;
        uint64_t p = 0;
        std::memcpy(&p, bytes, sizeof p);
        uint64_t source = p;
        const bool all = a.count == whole_allocation;
        if (!p) {
            arr.null = true;
        } else if (all) {
            const auto [base, size] = Driver::get().allocation_of(p);
            arr.offset = p - base;
            arr.count = size / dtype_size(a.dtype);
            source = base;
            for (size_t n = 0; n < c.arrays.size(); ++n) {
                CapturedArray& other = c.arrays[n];
                if (!whole[n] || !other.has_data() || from[n] != base) continue;
                arr.same_as = int(n), source = 0;
                if (other.access != arr.access) other.access = Access::inout;
                break;
            }
        } else {
            arr.count =
                static_cast<uint64_t>(Expr::parse(a.count, scope).eval(slots.data()).as_int());
        }
        from.push_back(source);
        whole.push_back(all);
        c.arrays.push_back(std::move(arr));
        return std::make_pair(ArgKind::array, c.arrays.size() - 1);
    };
    // An array or scalar, a launch argument or a struct member: (kind, index).
    auto add = [&](const ArgDef& a, const char* bytes, MemberOf member) {
        return a.is_array ? add_array(a, bytes, member) : add_scalar(a, bytes, member);
    };
    for (size_t i = 0; i < count; ++i) {
        const ArgDef& a = args[i];
        const char* bytes = static_cast<const char*>(params[i]);
        if (!a.is_struct()) {
            c.order.push_back(add(a, bytes, {}));
            continue;
        }
        const int parent = int(c.structs.size());
        c.order.emplace_back(ArgKind::structure, c.structs.size());
        c.structs.push_back({a.name, std::vector<char>(bytes, bytes + a.struct_bytes)});
        for (const ArgDef& m : a.members) add(m, bytes + m.offset, {parent, m.offset});
    }
}

std::string write_capture(const std::string& dir, Capture& c) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || access(dir.c_str(), W_OK) != 0)
        throw CaptureError(fmt::format("capture directory '{}' is not writable{}", dir,
                                       ec ? " (" + ec.message() + ")" : ""));
    for (const CapturedArray& a : c.arrays)
        if (a.device_before)
            throw CaptureError(fmt::format("capture of array '{}' lies on the device (an "
                                           "in-process capture): it cannot be written",
                                           a.name));
    hash_arrays(c);
    const std::string stem = stem_for(dir, c);
    struct Release {
        const std::string &dir, &stem;
        ~Release() { release_stem(dir, stem); }
    } release{dir, stem};
    json args = json::array();
    for (auto [kind, idx] : c.order) {
        if (kind == ArgKind::scalar) {
            args.push_back(scalar_json(c.scalars[idx]));
        } else if (kind == ArgKind::array) {
            args.push_back(array_json(dir, stem, c, c.arrays[idx]));
        } else {
            const CapturedStruct& st = c.structs[idx];
            json members = json::array();
            for (const auto& sc : c.scalars)
                if (sc.member.parent == int(idx)) members.push_back(scalar_json(sc));
            for (auto& a : c.arrays)
                if (a.member.parent == int(idx)) members.push_back(array_json(dir, stem, c, a));
            args.push_back({{"name", st.name},
                            {"kind", "struct"},
                            {"bytes_hex", to_hex(st.raw)},
                            {"members", members}});
        }
    }
    json doc = {{"type", "squall-capture"},           {"version", 2},
                {"squall_version", squall_version()}, {"git_revision", squall_git_revision()},
                {"key", c.kernel.value("key", "")},   {"kernel", c.kernel},
                {"problem_size", c.problem.extent},   {"config", c.config},
                {"device_name", c.device_name},       {"arguments", args}};
    // JSON last and via rename: a reader never sees a capture whose data is missing.
    const std::string path = dir + "/" + stem + ".json";
    const std::string tmp = path + fmt::format(".tmp.{}", getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << doc.dump(1) << '\n';
        if (!out) throw CaptureError("cannot write capture file " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) throw CaptureError("cannot rename " + tmp);
    return path;
}

namespace {

struct Loader {
    const std::string& dir;
    bool verify;
    Capture& c;
    std::map<std::string, size_t> ids; // array id -> index

    void scalar(const json& a, MemberOf member) {
        CapturedScalar s;
        s.name = a.at("name");
        s.dtype = dtype_from_name(a.at("type"));
        s.raw = from_hex(a.at("bytes_hex"));
        if (s.raw.size() != dtype_size(s.dtype))
            throw CaptureError("scalar '" + s.name + "' has the wrong size");
        s.value = scalar_value(s.dtype, s.raw.data());
        s.member = member;
        if (member.parent < 0) c.order.emplace_back(ArgKind::scalar, c.scalars.size());
        c.scalars.push_back(std::move(s));
    }

    void array(const json& a, MemberOf member) {
        CapturedArray arr;
        arr.name = a.at("name");
        arr.dtype = dtype_from_name(a.at("type"));
        arr.access = access_from_name(a.at("access"));
        arr.count = a.at("count");
        arr.offset = a.value("offset_bytes", uint64_t(0));
        arr.null = a.value("null", false);
        arr.member = member;
        if (a.contains("same_as")) {
            auto it = ids.find(a.at("same_as").get<std::string>());
            if (it == ids.end())
                throw CaptureError("array '" + arr.name + "' is the same as an unknown array");
            arr.same_as = int(it->second);
        }
        auto load = [&](const char* file_key, const char* hash_key, std::vector<char>& data,
                        uint64_t& hash) {
            std::string path = dir + "/" + a.at(file_key).get<std::string>();
            data = read_file(path);
            hash = hash64(data.data(), data.size());
            if (!verify) return;
            if (data.size() != arr.bytes())
                throw CaptureError(fmt::format("capture file {} has {} bytes, expected {}", path,
                                               data.size(), arr.bytes()));
            if (hex64(hash) != a.at(hash_key).get<std::string>())
                throw CaptureError(fmt::format("capture file {} fails its hash check ({} != {})",
                                               path, hex64(hash),
                                               a.at(hash_key).get<std::string>()));
        };
        if (arr.has_data()) {
            load("before_file", "before_hash", arr.before, arr.hash_before);
            if (arr.access != Access::in)
                load("after_file", "after_hash", arr.after, arr.hash_after);
        }
        if (member.parent < 0) c.order.emplace_back(ArgKind::array, c.arrays.size());
        ids[array_id(c, arr)] = c.arrays.size();
        c.arrays.push_back(std::move(arr));
    }

    // A scalar or an array, a launch argument or a struct member.
    void value(const json& a, MemberOf member) {
        const std::string kind = a.at("kind");
        if (kind == "scalar") return scalar(a, member);
        if (kind == "array") return array(a, member);
        throw CaptureError("unknown argument kind '" + kind + "'");
    }

    void argument(const json& a) {
        if (a.at("kind") != "struct") return value(a, {});
        const int parent = int(c.structs.size());
        c.order.emplace_back(ArgKind::structure, c.structs.size());
        c.structs.push_back({a.at("name"), from_hex(a.at("bytes_hex"))});
        for (const auto& m : a.at("members")) {
            const MemberOf member{parent, m.at("member_offset").get<size_t>()};
            const size_t size = m.at("kind") == "array" ? sizeof(uint64_t)
                                                        : dtype_size(dtype_from_name(m.at("type")));
            if (member.offset + size > c.structs.back().raw.size())
                throw CaptureError("member '" + m.at("name").get<std::string>() +
                                   "' lies past the end of struct '" + c.structs.back().name + "'");
            value(m, member);
        }
    }
};

} // namespace

Capture load_capture(const std::string& json_path, bool verify) {
    std::ifstream in(json_path);
    if (!in) throw CaptureError("cannot read capture " + json_path);
    json doc;
    try {
        doc = json::parse(in);
    } catch (const std::exception& e) {
        throw CaptureError(fmt::format("capture {} is not valid JSON: {}", json_path, e.what()));
    }
    const std::string dir = fs::path(json_path).parent_path().string();
    Capture c;
    try {
        if (doc.at("type") != "squall-capture" ||
            (doc.at("version") != 1 && doc.at("version") != 2))
            throw CaptureError("not a version 1 or 2 squall capture");
        c.squall_version = doc.value("squall_version", "");
        c.git_revision = doc.value("git_revision", "");
        c.kernel = doc.at("kernel");
        c.config = doc.at("config");
        c.device_name = doc.value("device_name", "");
        auto ext = doc.at("problem_size").get<std::vector<long long>>();
        for (size_t i = 0; i < ext.size() && i < 3; ++i) c.problem.extent[i] = ext[i];
        Loader loader{dir, verify, c, {}};
        for (const auto& a : doc.at("arguments")) loader.argument(a);
    } catch (const CaptureError& e) {
        throw CaptureError(fmt::format("capture {}: {}", json_path, e.what()));
    } catch (const std::exception& e) {
        throw CaptureError(fmt::format("capture {} is malformed: {}", json_path, e.what()));
    }
    return c;
}

} // namespace squall::rt
